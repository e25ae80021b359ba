/**
 * A TCP proxy on 127.0.0.1 in front of a server (PostgreSQL here), which a test can take down (every
 * connection cut, new ones refused) and bring back on the same port: the server becomes unreachable for
 * whoever connects through the proxy, as in a network partition, while it keeps running for everyone else.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

/** A proxy the test controls. */
export interface TcpProxy {
  port: number;
  /** Cuts every connection and refuses new ones. */
  down(): Promise<void>;
  /** Accepts connections again, on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a proxy to `target` on a free port. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const created = createServer((client) => {
        const upstream = connect(target.port, target.host);
        track(client);
        track(upstream);
        client.pipe(upstream);
        upstream.pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      created.once('error', reject);
      created.listen(port, '127.0.0.1', () => {
        server = created;
        resolve((created.address() as { port: number }).port);
      });
    });
  const port = await listen(0);
  const down = async () => {
    const closing = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  };
  return {
    port,
    down,
    async up() {
      if (!server) await listen(port);
    },
    close: down,
  };
}
