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
  /** Set once the outcome is known: at once for a key the authenticator knows, else when its lookup ends. */
  settled?: Outcome;
  /** The lookup in flight, for a key the authenticator had to look up. */
  promise?: Promise<Outcome>;
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

function callerOutcome(caller: Caller, operation: OperationWithKeyKind | undefined): Outcome {
  const problem = keyKindProblem(operation?.['x-switchboard-key-kind'], caller.kind, operation?.operationId);
  return problem ? { error: problem } : { caller };
}

/** The first of `keys` (from `from`) that names a caller decides; synchronous while the authenticator answers so. */
function keysOutcome(keys: readonly string[], from: number, operation: OperationWithKeyKind | undefined, authenticate: KeyAuthenticator): Outcome | Promise<Outcome> {
  for (let index = from; index < keys.length; index += 1) {
    const found = authenticate(keys[index] as string);
    if (found instanceof Promise) {
      return found.then((caller) => (caller ? callerOutcome(caller, operation) : keysOutcome(keys, index + 1, operation, authenticate)));
    }
    if (found) return callerOutcome(found, operation);
  }
  return { error: new UnauthorizedError('Invalid API key') };
}

function authenticateRequest(req: Request, authenticate: KeyAuthenticator, security: SecurityModel): Outcome | Promise<Outcome> {
  const operation = (req as Request & { openapi?: { schema?: OperationWithKeyKind } }).openapi?.schema;
  const presented = presentedKeys(req.headers, security.acceptedBy(operation));
  if ('problem' in presented) return { error: new UnauthorizedError(presentedKeysProblem(presented)) };
  return keysOutcome(presented.keys, 0, operation, authenticate);
}

/**
 * A failed key lookup is the gateway's failure, not a 401 for the client: a 503 when the database is
 * unreachable (and the key is not in the cache), else a 500.
 */
function lookupFailure(cause: unknown): Outcome {
  return { error: cause instanceof GatewayError ? cause : new GatewayError(500, STANDARD_MESSAGES[500], { cause }) };
}

function settled(attempt: Attempt, outcome: Outcome): Outcome {
  // Set before anyone awaiting the promise resumes, so the error handler below can read it.
  attempt.settled = outcome;
  return outcome;
}

/**
 * The request's authentication outcome, computed once per request whoever asks first (a security handler of
 * the validator, or the validated fast path of src/http/validated-fast-path.ts). It is the outcome itself,
 * not a promise, when the authenticator answered from memory: a warm request goes on in the same turn, with
 * no async function, promise or microtask spent on it.
 */
export function authenticationOutcome(req: Request, authenticate: KeyAuthenticator, security: SecurityModel): Outcome | Promise<Outcome> {
  const known = (req as AuthenticatingRequest)[ATTEMPT];
  if (known) return known.settled ?? (known.promise as Promise<Outcome>);
  const attempt: Attempt = {};
  (req as AuthenticatingRequest)[ATTEMPT] = attempt;
  let outcome: Outcome | Promise<Outcome>;
  try {
    outcome = authenticateRequest(req, authenticate, security);
  } catch (cause) {
    outcome = lookupFailure(cause);
  }
  if (!(outcome instanceof Promise)) return settled(attempt, outcome);
  attempt.promise = outcome.then(
    (done) => settled(attempt, done),
    (cause: unknown) => settled(attempt, lookupFailure(cause)),
  );
  return attempt.promise;
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
