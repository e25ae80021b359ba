/** `GET /health`: unauthenticated liveness, and `draining` (503) once the instance is shutting down. */
import type { Router } from 'express';
import type { Health } from '#src/api-types.ts';
import { requestIdOf } from '#src/http/generation-id.ts';

/** Dependencies of the health route. */
export interface HealthRouteDeps {
  version: string;
  /** True once the instance is shutting down (src/lifecycle). */
  isDraining?: () => boolean;
}

/** Binds `GET /health`. */
export function bindGetHealthRoute(router: Router, deps: HealthRouteDeps): void {
  const ok: Health = { status: 'ok', version: deps.version };
  const draining: Health = { status: 'draining', version: deps.version };
  router.get('/health', (_req, res) => {
    // A 503 names itself in `request-id`, as every answer that is not a success does.
    if (deps.isDraining?.()) {
      requestIdOf(res);
      res.status(503).json(draining);
    } else res.json(ok);
  });
}
