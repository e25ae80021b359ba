/**
 * Pays the request validator's first-request cost (it compiles the spec, ~0.5 s) at start instead of on a
 * client's request. The warm-up request goes to a private listener of this process on an ephemeral port,
 * not to the public port: in a cluster, a connection to the shared port may be handed to another worker,
 * which would leave this one cold.
 */
import type { RequestListener } from 'node:http';
import { createServer, request } from '#src/http/node-http.ts';
import type { AddressInfo } from 'node:net';

/** Sends `GET <path>` through `app` on a throwaway loopback listener and waits for the answer's end. */
export async function warmUpValidator(app: RequestListener, path: string): Promise<void> {
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: 0, host: '127.0.0.1', exclusive: true }, resolve);
  });
  try {
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path, method: 'GET', agent: false }, (response) => {
        response.resume();
        response.on('end', resolve);
        response.on('error', reject);
      })
        .on('error', reject)
        .end();
    });
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
