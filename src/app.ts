/**
 * The express application: JSON parsing, spec validation with the spec's security (Bearer, and `x-api-key`
 * where an operation accepts it), one route module per operation, and one error renderer. Everything
 * stateful arrives through `AppDeps`. `POST /messages` runs the same steps without express's router walk
 * (src/http/direct-dispatch.ts): every step mounted here says whether it belongs to that chain.
 */
import type { RequestListener } from 'node:http';
import express, { type Express, type RequestHandler, type Router } from 'express';
import type { Logger } from '#src/logger.ts';
import type { KeyAuthenticator } from '#src/http/caller.ts';
import { BUNDLED_SPEC_PATH } from '#src/http/bundled-spec.ts';
import { createModelSlugPath } from '#src/http/model-slug-path.ts';
import { createOpenApiValidator } from '#src/http/openapi-validator.ts';
import { createMethodSemantics } from '#src/http/method-semantics.ts';
import { createExactPaths } from '#src/http/exact-paths.ts';
import { createErrorMiddleware, unknownPath, useAnthropicErrorShape, useMessagesErrorShape } from '#src/http/error-middleware.ts';
import { assignGenerationId, assignGenerationIdOn } from '#src/http/generation-id.ts';
import { canonicalJsonContentType } from '#src/http/canonical-content-type.ts';
import { bindAllRoutes, type RouteDeps } from '#src/routes/index.ts';
import { createBodyLimit } from '#src/http/body-limit.ts';
import { createJsonBodyParser } from '#src/http/json-body.ts';
import type { DrainTracker } from '#src/lifecycle/drain-tracker.ts';
import { createDirectDispatch, type DirectStep } from '#src/http/direct-dispatch.ts';
import { rejectNulCharacters } from '#src/http/reject-nul-characters.ts';

/** The path prefix of the API, the path part of the spec's server URL. */
export const API_PREFIX = '/api/v1';
const MESSAGES_PATH = `${API_PREFIX}/messages`;
const MODELS_PATH = `${API_PREFIX}/models`;

/** What the application needs from the outside world. */
export interface AppDeps extends RouteDeps {
  logger: Logger;
  authenticate: KeyAuthenticator;
  bodyLimitBytes: number;
  validateResponses: boolean;
  /** Counts the requests in flight and refuses new ones while the server drains (src/lifecycle). */
  drainTracker?: DrainTracker;
}

/** The application, and the server's request listener, which dispatches `POST /messages` directly. */
export interface GatewayApp {
  app: Express;
  listener: RequestListener;
}

/** Builds the express application. Listening and shutdown are the server's business. */
export function createApp(deps: AppDeps): GatewayApp {
  const app = express();
  app.disable('x-powered-by');
  // Paths match exactly, as on Anthropic's API: a near miss is a 404 naming the path meant (src/http/exact-paths.ts).
  app.enable('case sensitive routing');
  app.enable('strict routing');
  // Also what lets src/http/send-json.ts write a JSON answer without res.json.
  app.set('etag', false);
  // The steps `POST /messages` runs, in the order mounted here.
  const messagesChain: DirectStep[] = [];
  /** Mounts a middleware on the app and, unless it never acts on `POST /messages`, on that chain. */
  const use = (handle: RequestHandler, options: { mountPath?: string; messages: boolean }): void => {
    if (options.mountPath === undefined) app.use(handle);
    else app.use(options.mountPath, handle);
    if (options.messages) messagesChain.push({ handle, mountPath: options.mountPath });
  };

  // Claude Code probes its base URL (`ANTHROPIC_BASE_URL=…/api`, or `…/api/`) with HEAD before its first request.
  app.head(['/api', '/api/', '/api/v1', '/api/v1/'], (_req, res) => {
    res.status(200).end();
  });

  // Every answer of the /messages operations carries its generation id; a near miss or an unknown path under
  // the prefix makes no generation (express's mount matches them all). `POST /messages` always makes one.
  app.use(MESSAGES_PATH, assignGenerationIdOn([MESSAGES_PATH, `${MESSAGES_PATH}/count_tokens`]));
  messagesChain.push({ handle: assignGenerationId, mountPath: MESSAGES_PATH });
  use(useMessagesErrorShape, { mountPath: MESSAGES_PATH, messages: true });
  // The Anthropic SDKs' models.list() and retrieve() read Anthropic's error body (its type, its details).
  use(useAnthropicErrorShape, { mountPath: MODELS_PATH, messages: false });
  if (deps.drainTracker) use(deps.drainTracker.middleware, { messages: true });
  // Refuses a body over the limit from its Content-Length (or as it arrives), before the parser reads it.
  use(createBodyLimit(deps.bodyLimitBytes), { messages: true });
  use(createJsonBodyParser({ limitBytes: deps.bodyLimitBytes, url: MESSAGES_PATH }), { messages: true });
  use(canonicalJsonContentType, { messages: true });
  // Before everything that matches paths: a model slug's `/` may come unencoded. Never `POST /messages`.
  use(createModelSlugPath(API_PREFIX), { messages: false });
  // Before authentication: a documented path in another case or with a trailing slash is a 404 naming it.
  use(createExactPaths(BUNDLED_SPEC_PATH, API_PREFIX), { messages: false });
  // HEAD where GET is, OPTIONS answered with Allow: before the validator, which knows neither. It passes
  // any other method on untouched, so `POST /messages` skips it.
  use(createMethodSemantics(BUNDLED_SPEC_PATH, API_PREFIX), { messages: false });
  use(
    createOpenApiValidator({
      authenticate: deps.authenticate,
      validateResponses: deps.validateResponses,
      fastPath: { method: 'POST', url: MESSAGES_PATH },
    }),
    { messages: true },
  );
  use(rejectNulCharacters, { messages: false });

  const router: Router = express.Router({ caseSensitive: true, strict: true });
  const routes = bindAllRoutes(router, deps);
  app.use(API_PREFIX, router);
  messagesChain.push({ handle: routes.postMessages, mountPath: API_PREFIX });

  use(unknownPath, { messages: true });
  const errorMiddleware = createErrorMiddleware(deps.logger);
  app.use(errorMiddleware);
  const listener = createDirectDispatch(app, { method: 'POST', url: MESSAGES_PATH, steps: messagesChain, errorHandler: errorMiddleware });
  return { app, listener };
}
