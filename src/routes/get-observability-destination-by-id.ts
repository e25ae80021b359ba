/** `GET /observability/destinations/{id}`: one broadcast destination of the caller's account. */
import type { Router } from 'express';
import type { ObservabilityDestinationEnvelope } from '#src/api-types.ts';
import { callerOf } from '#src/http/caller.ts';
import type { DestinationRouteDeps } from '#src/routes/get-observability-destinations.ts';

/** Binds `GET /observability/destinations/{id}`. */
export function bindGetObservabilityDestinationByIdRoute(router: Router, deps: DestinationRouteDeps): void {
  router.get('/observability/destinations/:id', async (req, res) => {
    const body: ObservabilityDestinationEnvelope = { data: await deps.destinations.get(callerOf(res), req.params.id) };
    res.json(body);
  });
}
