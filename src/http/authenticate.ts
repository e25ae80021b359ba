/**
 * Authentication of a request: one code path behind every security scheme the spec declares. The OpenAPI
 * validator calls the handler of each scheme an operation accepts, all of them, concurrently (its
 * `SecuritySchemes.executeHandlers`), and reports the first alternative's error when none passes. So the
 * handlers share one outcome per request (one key lookup, one caller, one error), and the error handler
 * placed after the validator puts that outcome's error back in place of whichever alternative it reported.
 * The key kind an operation needs (`x-switchboard-key-kind`) is checked on the key that authenticated.
 */
import type { ErrorRequestHandler, Request, Response } from 'express';
import { ForbiddenError, GatewayError, STANDARD_MESSAGES, UnauthorizedError } from '#src/errors.ts';
import type { Caller, KeyAuthenticator } from '#src/http/caller.ts';
import { presentedKeys, type PresentedKeys } from '#src/http/presented-keys.ts';
import type { SecurityModel } from '#src/http/security-model.ts';

interface OperationWithKeyKind {
  operationId?: string;
  'x-switchboard-key-kind'?: 'management' | 'inference';
}

/** A request's authentication: the caller, or the error the client is told. */
export type Outcome = { caller: Caller } | { error: GatewayError };

interface Attempt {
  promise: Promise<Outcome>;
  settled?: Outcome;
}

type SecurityHandler = (req: Request) => Promise<true>;

// The request's attempt, on the request itself: a WeakMap entry per request is an ephemeron the garbage
// collector traces at every scavenge while the request lives, and its insertion a hash-table write.
const ATTEMPT = Symbol('authentication attempt');
type AuthenticatingRequest = Request & { [ATTEMPT]?: Attempt };

// What each inference operation does, so a management key refused there is told what it tried.
const INFERENCE_ACTIONS: Readonly<Record<string, string>> = { createMessage: 'create messages', countMessageTokens: 'count tokens' };

/**
 * Why a caller's key kind does not fit the operation (`operationId` names what a refused management key
 * attempted), or undefined when it does.
 */
export function keyKindProblem(required: OperationWithKeyKind['x-switchboard-key-kind'], actual: Caller['kind'], operationId?: string): GatewayError | undefined {
  if (required === 'management' && actual !== 'management') return new ForbiddenError();
  if (required === 'inference' && actual !== 'inference') {
    const action = (operationId !== undefined ? INFERENCE_ACTIONS[operationId] : undefined) ?? 'call inference operations';
    return new ForbiddenError(`Management keys cannot ${action}; use an inference key`);
  }
  return undefined;
}

/** The 401's message for a request that presents no key to look up (undefined: the standard message). */
function presentedKeysProblem(presented: Exclude<PresentedKeys, { keys: string[] }>): string | undefined {
  switch (presented.problem) {
    case 'missing':
      return undefined;
    case 'malformed-authorization':
      return 'Invalid Authorization header: expected `Bearer <key>`';
    case 'repeated':
      return `Invalid ${presented.header} header: it holds more than one value (was it sent twice?): send one key`;
    default: {
      const unreachable: never = presented;
      throw new Error(`unknown problem ${JSON.stringify(unreachable)}`);
    }
  }
}

async function authenticateRequest(req: Request, authenticate: KeyAuthenticator, security: SecurityModel): Promise<Outcome> {
  const operation = (req as Request & { openapi?: { schema?: OperationWithKeyKind } }).openapi?.schema;
  const presented = presentedKeys(req.headers, security.acceptedBy(operation));
  if ('problem' in presented) return { error: new UnauthorizedError(presentedKeysProblem(presented)) };
  for (const key of presented.keys) {
    const caller = await authenticate(key);
    if (!caller) continue;
    const problem = keyKindProblem(operation?.['x-switchboard-key-kind'], caller.kind, operation?.operationId);
    return problem ? { error: problem } : { caller };
  }
  return { error: new UnauthorizedError('Invalid API key') };
}

/**
 * The request's authentication outcome, computed once per request whoever asks first (a security handler of
 * the validator, or the validated fast path of src/http/validated-fast-path.ts).
 */
export function authenticationOutcome(req: Request, authenticate: KeyAuthenticator, security: SecurityModel): Promise<Outcome> {
  let attempt = (req as AuthenticatingRequest)[ATTEMPT];
  if (!attempt) {
    const created: Attempt = { promise: undefined as unknown as Promise<Outcome> };
    created.promise = settleAuthentication(req, authenticate, security, created);
    (req as AuthenticatingRequest)[ATTEMPT] = created;
    attempt = created;
  }
  return attempt.promise;
}

// One async function rather than a `.catch().then()` chain: two promises and two closures fewer per request.
async function settleAuthentication(req: Request, authenticate: KeyAuthenticator, security: SecurityModel, attempt: Attempt): Promise<Outcome> {
  let outcome: Outcome;
  try {
    outcome = await authenticateRequest(req, authenticate, security);
  } catch (cause) {
    // A failed key lookup is the gateway's failure, not a 401 for the client: a 503 when the database is
    // unreachable (and the key is not in the cache), else a 500.
    outcome = { error: cause instanceof GatewayError ? cause : new GatewayError(500, STANDARD_MESSAGES[500], { cause }) };
  }
  // Set before anyone awaiting the promise resumes, so the error handler below can read it.
  attempt.settled = outcome;
  return outcome;
}

/** The validator's security handlers: the same handler under every scheme name the spec defines. */
export function createSecurityHandlers(authenticate: KeyAuthenticator, security: SecurityModel): Record<string, SecurityHandler> {
  const handler: SecurityHandler = async (req) => {
    const outcome = await authenticationOutcome(req, authenticate, security);
    if ('error' in outcome) throw outcome.error;
    (req.res as Response).locals.caller = outcome.caller;
    return true;
  };
  return Object.fromEntries(security.schemeNames.map((name) => [name, handler]));
}

/**
 * Placed right after the validator: when the request's authentication ran and failed, that failure is what
 * the client is told, not the validator's report of the first alternative (which, for a request sending
 * only `x-api-key`, would be "Authorization header required").
 */
export const preferAuthenticationFailure: ErrorRequestHandler = (error: unknown, req, _res, next) => {
  const outcome = (req as AuthenticatingRequest)[ATTEMPT]?.settled;
  next(outcome && 'error' in outcome ? outcome.error : error);
};
