/**
 * Binds every operation's route module. Each module reads typed input, calls one service and writes the
 * response; errors go to the one error middleware.
 */
import type { Router } from 'express';
import { bindGetHealthRoute, type HealthRouteDeps } from '#src/routes/get-health.ts';

/** The union of what the route modules need. */
export interface RouteDeps extends HealthRouteDeps {}

/** Binds all routes onto the API router. */
export function bindAllRoutes(router: Router, deps: RouteDeps): void {
  bindGetHealthRoute(router, deps);
}
