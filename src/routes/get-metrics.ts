/** `GET /metrics`: the Prometheus text exposition of this gateway process's metrics. */
import type { Router } from 'express';
import type { GatewayMetrics } from '#src/observability/gateway-metrics.ts';

/** Dependencies of the metrics route. */
export interface MetricsRouteDeps {
  metrics: GatewayMetrics;
}

/** Binds `GET /metrics`. */
export function bindGetMetricsRoute(router: Router, deps: MetricsRouteDeps): void {
  router.get('/metrics', async (_req, res) => {
    const text = await deps.metrics.registry.metrics();
    res.type('text/plain').send(text);
  });
}
