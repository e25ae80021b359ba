/** `GET /observability/destinations`: one page of the caller's broadcast destinations (never their secrets). */
import type { Router } from 'express';
import type { ObservabilityDestinationPage } from '#src/api-types.ts';
import { callerOf } from '#src/http/caller.ts';
import type { DestinationService } from '#src/observability/destinations/destination-service.ts';
import type { CursorBinder } from '#src/http/cursor-binding.ts';
import { pageOf } from '#src/routes/pagination.ts';

/** Dependencies of the destination routes. */
export interface DestinationRouteDeps {
  destinations: DestinationService;
  /** Checks that a `cursor` is one this list returned to the caller's account. */
  cursors: CursorBinder;
}

/** Binds `GET /observability/destinations`. */
export function bindGetObservabilityDestinationsRoute(router: Router, deps: DestinationRouteDeps): void {
  router.get('/observability/destinations', async (req, res) => {
    const caller = callerOf(res);
    const body: ObservabilityDestinationPage = await deps.destinations.list(caller, pageOf(req, 'destinations', deps.cursors, caller.accountId));
    res.json(body);
  });
}
