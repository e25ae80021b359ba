/**
 * Binds every operation's route module. Each module reads typed input, calls one service and writes the
 * response; errors go to the one error middleware.
 */
import type { RequestHandler, Router } from 'express';
import { bindGetHealthRoute, type HealthRouteDeps } from '#src/routes/get-health.ts';
import { bindPostMessagesRoute, type MessagesRouteDeps } from '#src/routes/post-messages.ts';
import { bindPostCountTokensRoute } from '#src/routes/post-count-tokens.ts';
import { bindGetModelsRoute, type ModelsRouteDeps } from '#src/routes/get-models.ts';
import { bindCredentialRoutes, type CredentialRouteDeps } from '#src/routes/credential-routes.ts';
import { bindObservabilityRoutes, type ObservabilityRouteDeps } from '#src/routes/observability-routes.ts';

/** The union of what the route modules need. */
export interface RouteDeps extends HealthRouteDeps, MessagesRouteDeps, ModelsRouteDeps, CredentialRouteDeps, ObservabilityRouteDeps {}

/** The handlers the application also runs outside the router (src/http/direct-dispatch.ts). */
export interface BoundRoutes {
  postMessages: RequestHandler;
}

/** Binds all routes onto the API router. */
export function bindAllRoutes(router: Router, deps: RouteDeps): BoundRoutes {
  bindGetHealthRoute(router, deps);
  // Typed for its body; to the chain it is a handler like any other.
  const postMessages = bindPostMessagesRoute(router, deps) as RequestHandler;
  bindPostCountTokensRoute(router, deps);
  bindGetModelsRoute(router, deps);
  bindCredentialRoutes(router, deps);
  bindObservabilityRoutes(router, deps);
  return { postMessages };
}
