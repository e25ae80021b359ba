/**
 * A fast path through express-openapi-validator for one hot operation (`POST /messages`), built from the
 * validator's own output. Per request the validator's chain looks the route up among every path of the spec,
 * chains five promises, builds an `Error` (with its stack) for each security alternative the request does not
 * use, and parses the URL again for query parameters: a quarter of the gateway's CPU per request
 * (bench/ profile). None of it depends on the request once the route is known.
 *
 * So the first request the validator accepts on the operation is remembered: the route metadata it attached
 * (`req.openapi`) and the two ajv functions its request validator compiled for that route and media type.
 * Later requests of the same shape (same method and path, `application/json`, at least one
 * security scheme's header present, which is when the validator would call the security handlers) get that
 * metadata, the same shared authentication outcome the security handlers would produce, and the same two
 * compiled functions run on the same data (with a query, the validator's own request middleware, which also
 * converts the query's parameters). A request any of these would refuse, or of any other shape, goes
 * through the validator's full chain, which reports it as it always did: the fast path can only accept what
 * the validator accepts, and never reports an error of its own.
 */
import { createRequire } from 'node:module';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { KeyAuthenticator } from '#src/http/caller.ts';
import { authenticationOutcome, type Outcome } from '#src/http/authenticate.ts';
import type { SecurityModel } from '#src/http/security-model.ts';
import type { AcceptedScheme } from '#src/http/presented-keys.ts';

/** An ajv function compiled by the validator (`ValidateFunction`, the part used here). */
type CompiledValidator = ((data: unknown) => boolean) & { schema?: { properties?: { body?: { _discriminator?: unknown } } } };

interface RequestValidatorInstance {
  ajv: { getSchema(key: string): CompiledValidator | undefined };
  ajvBody: { getSchema(key: string): CompiledValidator | undefined };
}

interface OpenApiMetadata {
  expressRoute: string;
  openApiRoute: string;
  pathParams: Record<string, string>;
  schema: { operationId?: string };
  serial: number;
  _responseSchema?: unknown;
}

type ValidatedRequest = Request & { openapi?: OpenApiMetadata; [VALIDATOR]?: RequestValidatorInstance };

const VALIDATOR = Symbol('express-openapi-validator request validator');
const JSON_MEDIA_TYPE = 'application/json';
const QUESTION_MARK = 0x3f;

/**
 * Lets a request carry the validator's `RequestValidator` instance that validated it, so the compiled
 * functions can be found in its ajv caches afterwards (they are stored under `<METHOD>-<route>-<media type>`,
 * the validator's own cache key). Patched once per process; the instance is the validator's own.
 */
function exposeRequestValidator(): void {
  const validatorRequire = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
  const module = validatorRequire('./middlewares/openapi.request.validator') as {
    RequestValidator: { prototype: { validate: (this: RequestValidatorInstance, req: ValidatedRequest, ...rest: unknown[]) => unknown; exposed?: true } };
  };
  const prototype = module.RequestValidator.prototype;
  if (prototype.exposed) return;
  const validate = prototype.validate;
  prototype.validate = function exposedValidate(this: RequestValidatorInstance, req, ...rest) {
    req[VALIDATOR] = this;
    return validate.call(this, req, ...rest);
  };
  prototype.exposed = true;
}

/** What the fast path learned from the validator's first accepted request. */
interface Learned {
  metadata: Omit<OpenApiMetadata, 'pathParams'>;
  general: CompiledValidator;
  body: CompiledValidator;
  schemes: readonly AcceptedScheme[];
}

/** Options of the fast path. */
export interface FastPathOptions {
  method: string;
  /** The URL of the operation as the application sees it (prefix included), without a query. */
  url: string;
  authenticate: KeyAuthenticator;
  security: SecurityModel;
  /** The validator's request middleware: validates a request with a query, whose parameters it also converts. */
  requestValidation: RequestHandler;
  /** The validator's response middleware when responses are validated (tests), else undefined. */
  responseValidation?: RequestHandler;
  /** The validator's full chain, for every request the fast path does not accept. */
  chain: RequestHandler;
}

/** The fast path and the middleware that teaches it, placed after the validator's chain. */
export interface ValidatedFastPath {
  /** Accepts the request (and calls `next()`) or hands it to the validator's full chain. */
  handle: RequestHandler;
  /** Placed right after the validator: remembers the first accepted request of the operation's shape. */
  learn: RequestHandler;
}

function sameShape(req: Request, options: FastPathOptions): boolean {
  return (
    req.method === options.method &&
    (req.url === options.url || (req.url.startsWith(options.url) && req.url.charCodeAt(options.url.length) === QUESTION_MARK)) &&
    req.headers['content-type'] === JSON_MEDIA_TYPE
  );
}

/**
 * Whether the validator would call at least one security handler: its checks before a handler are only that
 * the scheme's header is present (and, for Bearer, says `bearer`). When one handler runs, every handler that
 * runs shares one outcome (src/http/authenticate.ts), so the validator accepts exactly when that outcome does.
 */
function reachesSecurityHandler(req: Request, schemes: readonly AcceptedScheme[]): boolean {
  for (const scheme of schemes) {
    if (scheme.kind === 'bearer') {
      const authorization = req.headers.authorization;
      if (authorization && authorization.toLowerCase().includes('bearer')) return true;
    } else if (req.headers[scheme.name]) return true;
  }
  return false;
}

/** Builds the fast path for one operation. */
export function createValidatedFastPath(options: FastPathOptions): ValidatedFastPath {
  exposeRequestValidator();
  let learned: Learned | undefined;

  function validate(req: ValidatedRequest, res: Response, next: NextFunction, current: Learned): void {
    if (req.url !== options.url) {
      // A query (Claude Code's `?beta=true`): the validator's own request middleware checks and converts its
      // parameters as the chain would; only the route lookup and the security alternatives are skipped. Its
      // errors are the chain's (authentication has passed, so the chain would report the same).
      options.requestValidation(req, res, (error?: unknown) => {
        if (error !== undefined) next(error);
        else if (options.responseValidation) options.responseValidation(req, res, next);
        else next();
      });
      return;
    }
    // The data the validator's request middleware validates, built the same way (no query: nothing to mutate).
    // The URL has no query string, so `req.query` would be express's parse of none, an empty object (without a
    // prototype), built by its getter on every read (the URL parsed, the app's setting read). An empty literal
    // validates alike: the schema's query is an object, and no parameter of ours is named after a prototype's.
    const data = { query: {}, headers: req.headers, params: req.params, cookies: undefined, body: req.body as unknown };
    const valid = current.general(data);
    const validBody = current.body(data);
    if (!valid || !validBody) {
      options.chain(req, res, next);
      return;
    }
    if (options.responseValidation) options.responseValidation(req, res, next);
    else next();
  }

  function authenticated(req: ValidatedRequest, res: Response, next: NextFunction, current: Learned, outcome: Outcome): void {
    if ('error' in outcome) {
      options.chain(req, res, next);
      return;
    }
    res.locals.caller = outcome.caller;
    validate(req, res, next, current);
  }

  return {
    handle(req: ValidatedRequest, res, next) {
      const current = learned;
      if (!current || !sameShape(req, options) || !reachesSecurityHandler(req, current.schemes)) {
        options.chain(req, res, next);
        return;
      }
      const pathParams: Record<string, string> = {};
      // One literal, no spread: V8 defines each property after a spread with a runtime call.
      const { expressRoute, openApiRoute, schema, serial, _responseSchema } = current.metadata;
      req.openapi = { expressRoute, openApiRoute, schema, serial, _responseSchema, pathParams };
      req.params = pathParams;
      const outcome = authenticationOutcome(req, options.authenticate, options.security);
      // A key known in memory is answered at once: the request goes on in this turn.
      if (outcome instanceof Promise) outcome.then((settled) => authenticated(req, res, next, current, settled), () => options.chain(req, res, next));
      else authenticated(req, res, next, current, outcome);
    },
    learn(req: ValidatedRequest, _res, next) {
      if (!learned && sameShape(req, options) && req.openapi && req[VALIDATOR]) learned = learnFrom(req.openapi, req[VALIDATOR], options);
      next();
    },
  };
}

function learnFrom(metadata: OpenApiMetadata, validator: RequestValidatorInstance, options: FastPathOptions): Learned | undefined {
  if (Object.keys(metadata.pathParams).length > 0) return undefined;
  const key = `${options.method}-${metadata.expressRoute}-${JSON_MEDIA_TYPE}`;
  const general = validator.ajv.getSchema(key);
  const body = validator.ajvBody.getSchema(key);
  // A discriminated body picks its validator per request: not this path's business.
  if (!general || !body || body.schema?.properties?.body?._discriminator !== undefined) return undefined;
  const { expressRoute, openApiRoute, schema, serial, _responseSchema } = metadata;
  return { metadata: { expressRoute, openApiRoute, schema, serial, _responseSchema }, general, body, schemes: options.security.acceptedBy(schema) };
}
