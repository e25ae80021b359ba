/** `POST /observability/destinations`: add a broadcast destination (secrets sealed, never returned). */
import type { Request, Router } from 'express';
import type { ObservabilityDestinationCreate, ObservabilityDestinationEnvelope } from '#src/api-types.ts';
import { callerOf } from '#src/http/caller.ts';
import type { DestinationRouteDeps } from '#src/routes/get-observability-destinations.ts';

/** Binds `POST /observability/destinations`. */
export function bindPostObservabilityDestinationsRoute(router: Router, deps: DestinationRouteDeps): void {
  router.post('/observability/destinations', async (req: Request<Record<string, string>, unknown, ObservabilityDestinationCreate>, res) => {
    const body: ObservabilityDestinationEnvelope = { data: await deps.destinations.create(callerOf(res), req.body) };
    res.status(201).json(body);
  });
}
