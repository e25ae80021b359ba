/** `PATCH /observability/destinations/{id}`: change a broadcast destination. */
import type { Request, Router } from 'express';
import type { ObservabilityDestinationEnvelope, ObservabilityDestinationPatch } from '#src/api-types.ts';
import { callerOf } from '#src/http/caller.ts';
import type { DestinationRouteDeps } from '#src/routes/get-observability-destinations.ts';

/** Binds `PATCH /observability/destinations/{id}`. */
export function bindPatchObservabilityDestinationByIdRoute(router: Router, deps: DestinationRouteDeps): void {
  router.patch('/observability/destinations/:id', async (req: Request<{ id: string }, unknown, ObservabilityDestinationPatch>, res) => {
    const body: ObservabilityDestinationEnvelope = { data: await deps.destinations.update(callerOf(res), req.params.id, req.body) };
    res.json(body);
  });
}
