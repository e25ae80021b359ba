/**
 * The gateway's one small error model: every error class. Every failure that reaches a client is a
 * `GatewayError`; the one error middleware renders it (and the stream writer, after the first byte, as an
 * in-stream `error` event). Only `publicMessage` and `details` are ever shown to a client, so a cause may carry
 * anything (an upstream body, a driver error) without leaking it. The tables between statuses, Anthropic
 * error types and failure kinds are in error-vocabulary.ts.
 */
import { statusForFailures, statusForUpstreamKind, type UpstreamFailureKind } from '#src/error-vocabulary.ts';
import type { Usage } from '#src/api-types.ts';

export type { UpstreamFailureKind };

/** One problem in a request: where (`/body/name`) and what. */
export interface ErrorDetail {
  path?: string;
  message: string;
}

/** The interface's fixed public messages, by status. */
export const STANDARD_MESSAGES = {
  400: 'Invalid request parameters',
  401: 'Missing Authentication header',
  403: 'Only management keys can perform this operation',
  404: 'Resource not found',
  409: 'Resource conflict. Please try again later.',
  413: 'Request body too large',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
} as const;

/** A failure with an HTTP status and a message that is safe to show to the client. */
export class GatewayError extends Error {
  readonly status: number;
  readonly publicMessage: string;
  readonly details: ErrorDetail[] | undefined;
  /** Response headers the answer carries (`retry-after` on a rate limit). */
  readonly headers: Readonly<Record<string, string>> | undefined;

  constructor(status: number, publicMessage: string, options: { details?: ErrorDetail[]; cause?: unknown; headers?: Record<string, string> } = {}) {
    super(publicMessage, { cause: options.cause });
    this.name = new.target.name;
    this.status = status;
    this.publicMessage = publicMessage;
    this.details = options.details;
    this.headers = options.headers;
  }
}

/** 400: the request is invalid. `reason`, when given, is appended to the interface's fixed message. */
export class BadRequestError extends GatewayError {
  constructor(reason?: string, options: { details?: ErrorDetail[]; cause?: unknown } = {}) {
    super(400, reason ? `${STANDARD_MESSAGES[400]}: ${reason}` : STANDARD_MESSAGES[400], options);
  }
}

/**
 * 400: the vendor of one endpoint cannot express a feature the request uses (a field, block type, tool type,
 * role or value), found before anything was sent to it. The attempt runner skips that endpoint for the next
 * one; when no endpoint can serve the request, the first such error is the answer.
 */
export class UnsupportedFeatureError extends BadRequestError {}

/**
 * 400: the prompt's estimate exceeds the known context length of one endpoint, found before anything was sent
 * to it. Skipped like an unsupported feature: a later attempt with a larger context may serve the request, and
 * when none can, the first such error is the answer.
 */
export class ContextLengthExceededError extends UnsupportedFeatureError {}

/**
 * 503: the `moderation` plugin could not screen the input (its upstream failed, timed out or answered
 * nonsense) and the gateway fails closed: no model was called.
 */
export class ModerationUnavailableError extends GatewayError {
  constructor(reason: string, options: { cause?: unknown } = {}) {
    super(503, `The moderation plugin could not screen the input (${reason}); the request was not sent to any model`, options);
  }
}

/** 401: no credentials, or credentials the gateway does not know. */
export class UnauthorizedError extends GatewayError {
  constructor(message: string = STANDARD_MESSAGES[401]) {
    super(401, message);
  }
}

/** 403: the key is valid but of the wrong kind for this operation. */
export class ForbiddenError extends GatewayError {
  constructor(message: string = STANDARD_MESSAGES[403]) {
    super(403, message);
  }
}

/** 404: no such resource in the caller's account (another account's resource answers the same). */
export class NotFoundError extends GatewayError {
  constructor(message: string = STANDARD_MESSAGES[404]) {
    super(404, message);
  }
}

/**
 * 409: the change conflicts with the resource's state and nothing was written: a concurrent change won (the
 * standard message), or the change would break a rule about the state (its own message says which).
 */
export class ConflictError extends GatewayError {
  constructor(message: string = STANDARD_MESSAGES[409], options: { cause?: unknown } = {}) {
    super(409, message, options);
  }
}

/**
 * A failed call to a provider. `retryable` says the same request may succeed later; `fallbackEligible` says
 * the next attempt (another provider, key or model) may be tried. `rawBody` is for redacted logs only.
 */
export class UpstreamError extends GatewayError {
  readonly provider: string;
  /** The HTTP status the upstream answered with (the attempt's `http_status`): 200 for a failure inside an answer. */
  upstreamStatus: number | undefined;
  readonly kind: UpstreamFailureKind;
  readonly retryable: boolean;
  readonly fallbackEligible: boolean;
  readonly rawBody: string | undefined;
  /**
   * What the vendor reported it used before it failed (OpenAI Responses `response.failed` carries `usage`), in
   * Anthropic's convention, cost not set: the call is billed all the same, so the request is charged for it.
   * Set by the adapter that read it; undefined when the vendor reported nothing.
   */
  billedUsage: Usage | undefined;
  /**
   * The upstream's response headers, as received (undici's shape), for an HTTP error of an Anthropic-format
   * upstream: only a rate-limited attempt the caller's own key made passes any of them on (its
   * `anthropic-ratelimit-*`, see messages/own-key-rate-limits.ts). Set by the adapter that read them.
   */
  upstreamHeaders: Readonly<Record<string, string | string[] | undefined>> | undefined;

  constructor(options: {
    provider: string;
    kind: UpstreamFailureKind;
    upstreamStatus?: number;
    message?: string;
    rawBody?: string;
    cause?: unknown;
    /** Whole seconds the upstream asked to wait (its `retry-after`), for a rate limit or an overload. */
    retryAfterSeconds?: number;
  }) {
    const status = statusForUpstreamKind(options.kind);
    const headers = options.retryAfterSeconds === undefined ? undefined : { 'retry-after': String(options.retryAfterSeconds) };
    super(status, options.message ?? defaultUpstreamMessage(options.provider, options.kind), { cause: options.cause, ...(headers ? { headers } : {}) });
    this.provider = options.provider;
    this.upstreamStatus = options.upstreamStatus;
    this.kind = options.kind;
    this.rawBody = options.rawBody;
    this.billedUsage = undefined;
    this.upstreamHeaders = undefined;
    this.retryable = RETRYABLE_KINDS.has(options.kind);
    this.fallbackEligible = this.retryable || FALLBACK_ONLY_KINDS.has(options.kind);
  }
}

const RETRYABLE_KINDS: ReadonlySet<UpstreamFailureKind> = new Set([
  'rate_limited',
  'overloaded',
  'server_error',
  'timeout',
  'connection',
  'malformed_response',
]);

// Not worth retrying on the same endpoint, but another provider, key or model may well succeed.
const FALLBACK_ONLY_KINDS: ReadonlySet<UpstreamFailureKind> = new Set(['refusal', 'authentication', 'not_found', 'request_too_large']);

function defaultUpstreamMessage(provider: string, kind: UpstreamFailureKind): string {
  return `Upstream ${provider} failed: ${kind.replaceAll('_', ' ')}`;
}

/**
 * 404: the request names models that exist, but the provider preferences or BYOK rules left no endpoint;
 * the message names the rule that removed the last endpoint of each model.
 */
export class NoEndpointError extends GatewayError {
  constructor(reasons: readonly string[]) {
    super(404, `No endpoint can serve this request: ${reasons.join('; ')}`);
  }
}

/** 500: a planned endpoint has no host for the request's region, which the planner's filters should prevent. */
export class EndpointLocationError extends GatewayError {
  constructor(endpointId: string, region: string) {
    super(500, STANDARD_MESSAGES[500], { cause: new Error(`planned endpoint ${endpointId} has no location for region ${region}`) });
  }
}

/**
 * 503: a BYOK credential the plan chose was deleted before its attempt ran. The attempt runner records it
 * (`credential_unavailable`) and moves on to the next attempt.
 */
export class CredentialUnavailableError extends GatewayError {
  readonly credentialId: string;

  constructor(credentialId: string) {
    super(503, `BYOK credential ${credentialId} is no longer available`);
    this.credentialId = credentialId;
  }
}

/** 504, as Anthropic answers a request it could not finish in time: the request's time budget ran out (or the client left) before any attempt answered. */
export class OutOfTimeError extends GatewayError {
  constructor() {
    super(504, 'The request ran out of time before any provider answered');
  }
}

/**
 * The abort reason of a request whose time budget (`SWITCHBOARD_REQUEST_TIMEOUT_MS`) is spent: a DOMException
 * named `TimeoutError`, as fetch and undici read it, that says which budget it was.
 */
export class TimeBudgetSpent extends DOMException {
  readonly budgetMs: number;

  constructor(budgetMs: number) {
    super(`The request exceeded its time budget of ${budgetMs} ms`, 'TimeoutError');
    this.budgetMs = budgetMs;
  }
}

/**
 * 504: the request's time budget ran out in the middle of a server-side tool loop; the message says at which
 * step and what was running (the model's answer, or which gateway tools).
 */
export class ToolLoopTimeoutError extends GatewayError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(504, message, options);
  }
}

/** One tried attempt as the all-failed message names it. */
export interface TriedAttempt {
  model: string;
  /** The provider's display name. */
  provider: string;
  status: string;
  httpStatus: number | null;
}

/**
 * Every attempt failed. The status follows what the failures have in common (see `statusForFailures`); the
 * message says what was tried and how each ended, never an upstream body. A "try later" answer (429, 503, 529)
 * carries `retry-after` when every failure named its wait: the soonest, when one of the attempts may answer.
 */
export class AllAttemptsFailedError extends GatewayError {
  /** `passedOn`: headers a 429 carries besides `retry-after` (a caller's own key's rate-limit headers). */
  constructor(tried: readonly TriedAttempt[], failures: readonly GatewayError[], passedOn?: Readonly<Record<string, string>>) {
    // A status is named when it was an HTTP error; a failure inside a 200 answer says only how it failed.
    const parts = tried.map((attempt) => `${attempt.model} on ${attempt.provider}: ${attempt.status.replaceAll('_', ' ')}${attempt.httpStatus && attempt.httpStatus >= 400 ? ` (${attempt.httpStatus})` : ''}`);
    const status = statusForFailures(failures.map((failure) => failure.status));
    const retryAfter = status === 429 || status === 503 || status === 529 ? soonestRetryAfter(failures) : undefined;
    const headers = { ...(status === 429 ? passedOn : undefined), ...(retryAfter ? { 'retry-after': retryAfter } : {}) };
    super(status, `Every attempt failed: ${parts.join('; ')}`, Object.keys(headers).length > 0 ? { headers } : {});
  }
}

// Without a wait from every failure there is no bound to give: the client's own backoff applies.
function soonestRetryAfter(failures: readonly GatewayError[]): string | undefined {
  let soonest: number | undefined;
  for (const failure of failures) {
    const seconds = Number(failure.headers?.['retry-after'] ?? Number.NaN);
    if (!Number.isFinite(seconds)) return undefined;
    soonest = soonest === undefined ? seconds : Math.min(soonest, seconds);
  }
  return soonest === undefined ? undefined : String(soonest);
}

/**
 * 503: this instance is shutting down. New requests on connections still open get it at once; a stream still
 * open when the grace period ends gets it as an in-band `overloaded_error` event. Either may be retried.
 */
export class ShuttingDownError extends GatewayError {
  constructor() {
    super(503, 'The gateway is shutting down; retry the request');
  }
}

/** 503: the database is unreachable and the operation cannot be served from memory. */
export class DatabaseUnavailableError extends GatewayError {
  constructor(options: { cause?: unknown } = {}) {
    super(503, 'The database is unavailable; retry later', options);
  }
}

/** 413: the request body is larger than the gateway accepts; the rest of it is never read. */
export class BodyTooLargeError extends GatewayError {
  constructor(limitBytes: number) {
    super(413, `${STANDARD_MESSAGES[413]}: at most ${limitBytes} bytes are accepted`);
  }
}
