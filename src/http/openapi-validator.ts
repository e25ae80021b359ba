/**
 * Request (and, in tests, response) validation against the bundled spec, with authentication handled by
 * the spec's own `security` declarations (Bearer everywhere, `x-api-key` too where an operation lists it).
 * The spec file is the validator's only input.
 */
import { createRequire } from 'node:module';
import * as OpenApiValidator from 'express-openapi-validator';
import { Router, type ErrorRequestHandler, type RequestHandler } from 'express';
import type { KeyAuthenticator } from '#src/http/caller.ts';
import { createSecurityHandlers, preferAuthenticationFailure } from '#src/http/authenticate.ts';
import { BUNDLED_SPEC_PATH, readSpec } from '#src/http/bundled-spec.ts';
import { loadSecurityModel } from '#src/http/security-model.ts';
import { createValidatedFastPath } from '#src/http/validated-fast-path.ts';
import { rejectEmptyBody } from '#src/http/empty-body.ts';
import { withStrictQuery } from '#src/http/strict-query.ts';

type OpenApiDocument = Exclude<Parameters<typeof OpenApiValidator.middleware>[0]['apiSpec'], string>;
type PathToRegexp = (path: unknown, options?: object) => unknown;

const ROUTE_MATCHER_CACHE_LIMIT = 1_000;

/**
 * express-openapi-validator compiles the path pattern of every route it scans again on each request (its
 * `lookupRoute`; cdimascio/express-openapi-validator#1217, about 5% of the gateway's CPU per request). The
 * compilation is a pure function of the pattern and options, so the patterns it asks for are compiled once.
 * They come from the spec, so the cache stays small; its limit only guards against a caller passing paths
 * built from requests. The regexes carry no `g`/`y` flag, so sharing one instance keeps `exec` stateless.
 */
function cacheRouteMatchers(): void {
  const validatorRequire = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
  const library = validatorRequire('path-to-regexp') as { pathToRegexp: PathToRegexp & { cached?: true } };
  const compile = library.pathToRegexp;
  if (typeof compile !== 'function' || compile.cached) return;
  const compiled = new Map<string, unknown>();
  const cached: PathToRegexp & { cached?: true } = (path, options) => {
    if (typeof path !== 'string') return compile(path, options);
    const key = `${path}\u0000${JSON.stringify(options ?? {})}`;
    let matcher = compiled.get(key);
    if (matcher === undefined) {
      matcher = compile(path, options);
      if (compiled.size < ROUTE_MATCHER_CACHE_LIMIT) compiled.set(key, matcher);
    }
    return matcher;
  };
  cached.cached = true;
  library.pathToRegexp = cached;
}

/** One named step of the validator's chain (express-openapi-validator names them); throws if it is gone. */
function validatorStep(chain: readonly RequestHandler[], name: string): RequestHandler {
  const step = chain.find((middleware) => middleware.name === name);
  if (!step) throw new Error(`express-openapi-validator has no ${name} step: the validated fast path needs it`);
  return step;
}

/** Options of the validator middleware. */
export interface ValidatorOptions {
  authenticate: KeyAuthenticator;
  /** Validate every JSON response against the spec too; on in tests, off in production (it costs per request). */
  validateResponses: boolean;
  /** The hot operation given a fast path through the validator's compiled output (`POST /api/v1/messages`). */
  fastPath?: { method: string; url: string };
}

/**
 * The validator middleware: route matching, security, request validation, optional response validation,
 * then the handler that reports a failed authentication as it failed. With `fastPath`, requests of that
 * operation the validator has accepted before in the same shape skip the chain's per-request lookups
 * (src/http/validated-fast-path.ts); everything else, every refusal included, goes through the whole chain.
 */
export function createOpenApiValidator(options: ValidatorOptions): RequestHandler {
  cacheRouteMatchers();
  const security = loadSecurityModel(BUNDLED_SPEC_PATH);
  const validator = OpenApiValidator.middleware({
    // Parsed here from the ASCII JSON bundle rather than read by the validator from a path: see bundled-spec.ts.
    apiSpec: readSpec() as unknown as OpenApiDocument,
    validateApiSpec: false,
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false, removeAdditional: false },
    validateResponses: options.validateResponses ? { removeAdditional: false, coerceTypes: false } : false,
    validateSecurity: { handlers: createSecurityHandlers(options.authenticate, security) },
    validateFormats: true,
  }) as RequestHandler[];
  // Query values read as written (src/http/strict-query.ts), on the full chain and the fast path alike.
  const requestValidation = withStrictQuery(validatorStep(validator, 'requestMiddleware'));
  const requestStep = validator.indexOf(validatorStep(validator, 'requestMiddleware'));
  // After the security step (a 401 comes first), before the body is validated.
  validator.splice(requestStep, 1, rejectEmptyBody, requestValidation);
  const chain = Router();
  if (!options.fastPath) {
    chain.use(validator, preferAuthenticationFailure as ErrorRequestHandler);
    return chain;
  }
  const fastPath = createValidatedFastPath({
    ...options.fastPath,
    authenticate: options.authenticate,
    security,
    requestValidation,
    responseValidation: options.validateResponses ? validatorStep(validator, 'responseMiddleware') : undefined,
    chain,
  });
  chain.use(validator, fastPath.learn, preferAuthenticationFailure as ErrorRequestHandler);
  return fastPath.handle;
}
