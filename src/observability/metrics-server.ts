/**
 * The optional metrics listener (`SWITCHBOARD_METRICS_PORT`): `GET /metrics` without a key on a port of its
 * own, for a Prometheus that scrapes a private network rather than the API. Anything else is a 404.
 */
import { createServer } from '#src/http/node-http.ts';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** Starts the listener; resolves once it accepts connections. */
export async function startMetricsServer(options: { port: number; host: string; registry: Registry }): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: the metrics listener serves GET /metrics only\n');
      return;
    }
    options.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': options.registry.contentType }).end(text),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('Internal Server Error\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    origin: `http://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
