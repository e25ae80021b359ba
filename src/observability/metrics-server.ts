/**
 * The optional metrics listener (`SWITCHBOARD_METRICS_PORT`): `GET /metrics` without a key on a port of its
 * own, for a Prometheus that scrapes a private network rather than the API. Anything else is a 404. With
 * `SWITCHBOARD_WORKERS` the cluster primary serves it, scraping every worker (cluster-metrics.ts).
 */
import { createServer } from '#src/http/node-http.ts';
import type { AddressInfo } from 'node:net';
import { listenFailure } from '#src/http/listen-failure.ts';
import { ClusterMetricsError, type ScrapeMetrics } from '#src/observability/cluster-metrics.ts';

/** Starts the listener; resolves once it accepts connections. */
export async function startMetricsServer(options: { port: number; host: string; scrape: ScrapeMetrics }): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: the metrics listener serves GET /metrics only\n');
      return;
    }
    options.scrape().then(
      ({ text, contentType }) => res.writeHead(200, { 'content-type': contentType }).end(text),
      (error: unknown) =>
        error instanceof ClusterMetricsError
          ? res.writeHead(503, { 'content-type': 'text/plain' }).end(`The metrics of the gateway's workers could not be collected: ${error.message}; retry the scrape\n`)
          : res.writeHead(500, { 'content-type': 'text/plain' }).end('Internal Server Error\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(listenFailure(error, options, 'HOST, SWITCHBOARD_METRICS_PORT')));
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    origin: `http://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
