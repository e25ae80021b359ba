/** `DELETE /observability/destinations/{id}`: delete a broadcast destination and its secrets; 204. */
import type { Router } from 'express';
import { callerOf } from '#src/http/caller.ts';
import type { DestinationRouteDeps } from '#src/routes/get-observability-destinations.ts';

/** Binds `DELETE /observability/destinations/{id}`. */
export function bindDeleteObservabilityDestinationByIdRoute(router: Router, deps: DestinationRouteDeps): void {
  router.delete('/observability/destinations/:id', async (req, res) => {
    await deps.destinations.remove(callerOf(res), req.params.id);
    res.status(204).end();
  });
}
