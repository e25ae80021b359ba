/** `GET /health`: unauthenticated liveness. */
import type { Router } from 'express';
import type { operations } from '#src/api-types.ts';

type HealthResponse = operations['getHealth']['responses'][200]['content']['application/json'];

/** Dependencies of the health route. */
export interface HealthRouteDeps {
  version: string;
}

/** Binds `GET /health`. */
export function bindGetHealthRoute(router: Router, deps: HealthRouteDeps): void {
  const body: HealthResponse = { status: 'ok', version: deps.version };
  router.get('/health', (_req, res) => {
    res.json(body);
  });
}
