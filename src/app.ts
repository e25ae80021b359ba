/**
 * The express application: JSON parsing, spec validation with the spec's security (Bearer, and `x-api-key`
 * where an operation accepts it), one route module per operation, and one error renderer. Everything
 * stateful arrives through `AppDeps`.
 */
import express, { type Express, type Router } from 'express';
import { NotFoundError } from '#src/errors.ts';
import type { Logger } from '#src/logger.ts';
import type { KeyAuthenticator } from '#src/http/caller.ts';
import { BUNDLED_SPEC_PATH, createOpenApiValidator } from '#src/http/openapi-validator.ts';
import { createMethodSemantics } from '#src/http/method-semantics.ts';
import { createErrorMiddleware, useMessagesErrorShape } from '#src/http/error-middleware.ts';
import { assignGenerationId } from '#src/http/generation-id.ts';
import { canonicalJsonContentType } from '#src/http/canonical-content-type.ts';
import { bindAllRoutes, type RouteDeps } from '#src/routes/index.ts';
import { createBodyLimit } from '#src/http/body-limit.ts';
import { createJsonBodyParser } from '#src/http/json-body.ts';
import type { DrainTracker } from '#src/lifecycle/drain-tracker.ts';

/** The path prefix of the API, the path part of the spec's server URL. */
export const API_PREFIX = '/api/v1';

/** What the application needs from the outside world. */
export interface AppDeps extends RouteDeps {
  logger: Logger;
  authenticate: KeyAuthenticator;
  bodyLimitBytes: number;
  validateResponses: boolean;
  /** Counts the requests in flight and refuses new ones while the server drains (src/lifecycle). */
  drainTracker?: DrainTracker;
}

/** Builds the express application. Listening and shutdown are the server's business. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  // Claude Code probes its base URL (`ANTHROPIC_BASE_URL=…/api`) with HEAD before its first request.
  app.head(['/api', '/api/v1'], (_req, res) => {
    res.status(200).end();
  });

  app.use(`${API_PREFIX}/messages`, assignGenerationId, useMessagesErrorShape);
  if (deps.drainTracker) app.use(deps.drainTracker.middleware);
  // Refuses a body over the limit from its Content-Length (or as it arrives), before the parser reads it.
  app.use(createBodyLimit(deps.bodyLimitBytes));
  app.use(createJsonBodyParser({ limitBytes: deps.bodyLimitBytes, url: `${API_PREFIX}/messages` }));
  app.use(canonicalJsonContentType);
  // HEAD where GET is, OPTIONS answered with Allow: before the validator, which knows neither.
  app.use(createMethodSemantics(BUNDLED_SPEC_PATH, API_PREFIX));
  app.use(
    createOpenApiValidator({
      authenticate: deps.authenticate,
      validateResponses: deps.validateResponses,
      fastPath: { method: 'POST', url: `${API_PREFIX}/messages` },
    }),
  );

  const router: Router = express.Router();
  bindAllRoutes(router, deps);
  app.use(API_PREFIX, router);

  app.use((_req, _res, next) => next(new NotFoundError()));
  app.use(createErrorMiddleware(deps.logger));
  return app;
}
