/**
 * `GET /metrics`: the Prometheus text exposition of this gateway's metrics; in a cluster worker, of every
 * worker's, collected by the primary (src/observability/cluster-metrics.ts).
 */
import type { Router } from 'express';
import { GatewayError } from '#src/errors.ts';
import { ClusterMetricsError, type ScrapeMetrics } from '#src/observability/cluster-metrics.ts';
import type { GatewayMetrics } from '#src/observability/gateway-metrics.ts';

/** Dependencies of the metrics route. */
export interface MetricsRouteDeps {
  metrics: GatewayMetrics;
  /** In a cluster worker: the whole cluster's metrics, asked of the primary. This process's otherwise. */
  scrapeMetrics?: ScrapeMetrics;
}

/** Binds `GET /metrics`. */
export function bindGetMetricsRoute(router: Router, deps: MetricsRouteDeps): void {
  const scrape = deps.scrapeMetrics ?? (async () => ({ text: await deps.metrics.registry.metrics() }));
  router.get('/metrics', async (_req, res) => {
    let text: string;
    try {
      ({ text } = await scrape());
    } catch (error) {
      if (!(error instanceof ClusterMetricsError)) throw error;
      throw new GatewayError(503, `The metrics of the gateway's workers could not be collected: ${error.message}; retry the scrape`, { cause: error });
    }
    // Prometheus's text format, with its version, as prom-client names it (the metrics listener sends the same).
    res.type(deps.metrics.registry.contentType).send(text);
  });
}
