/**
 * The words for what went wrong, and the one set of tables between them: an HTTP status, Anthropic's error
 * type (what `/messages` clients read, in a JSON error body or an in-stream `error` event) and the gateway's
 * upstream failure kind (what the attempt runner decides on). Every mapping in either direction is here, so a
 * status means the same thing in a JSON error, in a stream, in an adapter and in the runner.
 */
import type { AnthropicErrorType, AttemptStatus } from '#src/api-types.ts';

export type { AnthropicErrorType, AttemptStatus };

/**
 * What went wrong with an upstream call, independent of the vendor: the spec's attempt statuses other than
 * those of an attempt that answered or never reached its upstream.
 */
export type UpstreamFailureKind = Exclude<AttemptStatus, 'success' | 'unsupported' | 'credential_unavailable'>;

const ERROR_TYPE_BY_STATUS: Readonly<Record<number, AnthropicErrorType>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  405: 'invalid_request_error',
  413: 'request_too_large',
  415: 'invalid_request_error',
  429: 'rate_limit_error',
  500: 'api_error',
  502: 'api_error',
  503: 'overloaded_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/** The Anthropic error type of a status the gateway answers with; `api_error` for any other. */
export function anthropicErrorType(status: number): AnthropicErrorType {
  return ERROR_TYPE_BY_STATUS[status] ?? 'api_error';
}

const KIND_BY_ERROR_TYPE: Readonly<Record<AnthropicErrorType, UpstreamFailureKind>> = {
  invalid_request_error: 'invalid_request',
  authentication_error: 'authentication',
  // An exhausted account: another key or provider may well answer.
  billing_error: 'authentication',
  permission_error: 'authentication',
  not_found_error: 'not_found',
  request_too_large: 'request_too_large',
  rate_limit_error: 'rate_limited',
  timeout_error: 'timeout',
  api_error: 'server_error',
  overloaded_error: 'overloaded',
};

/** True when the text is one of Anthropic's error types. */
export function isAnthropicErrorType(type: unknown): type is AnthropicErrorType {
  return typeof type === 'string' && Object.hasOwn(KIND_BY_ERROR_TYPE, type);
}

/**
 * The failure kind an upstream's Anthropic error type stands for (an in-stream `error` event); an unknown type
 * is a server error, retryable as a 5xx would be.
 */
export function kindForErrorType(type: unknown): UpstreamFailureKind {
  return isAnthropicErrorType(type) ? KIND_BY_ERROR_TYPE[type] : 'server_error';
}

/** The failure kind of an upstream's HTTP status (any status of 400 and above). */
export function kindForStatus(status: number): UpstreamFailureKind {
  if (status === 429) return 'rate_limited';
  // 498: Groq's flex tier at capacity (`capacity_exceeded`).
  if (status === 529 || status === 503 || status === 498) return 'overloaded';
  if (status === 408 || status === 504) return 'timeout';
  // 402: the key's account has no credit; another key or provider may well answer.
  if (status === 401 || status === 402 || status === 403) return 'authentication';
  if (status === 404) return 'not_found';
  // Over this vendor's size limit: another vendor's limit may be larger.
  if (status === 413) return 'request_too_large';
  // Bedrock's ModelErrorException: the model failed on the vendor's side, not the request.
  if (status >= 500 || status === 424) return 'server_error';
  return 'invalid_request';
}

/**
 * Vendors' own names for a try-later failure sent under a status that would read otherwise, by the vendor's
 * error class (Bedrock's `x-amzn-errortype`) or error code (OpenAI-style `error.code`).
 */
const KIND_BY_VENDOR_ERROR_CODE: Readonly<Record<string, UpstreamFailureKind>> = {
  // Bedrock answers 400, but AWS documents it as an account quota to resubmit later: a rate limit.
  ServiceQuotaExceededException: 'rate_limited',
  // Groq's flex tier at capacity (status 498): fails fast, to be retried later.
  capacity_exceeded: 'overloaded',
};

/** The failure kind a vendor's error class or code names, overriding its status; undefined for any other. */
export function kindForVendorErrorCode(code: string | undefined): UpstreamFailureKind | undefined {
  return code !== undefined && Object.hasOwn(KIND_BY_VENDOR_ERROR_CODE, code) ? KIND_BY_VENDOR_ERROR_CODE[code] : undefined;
}

/** The status the gateway answers with when an attempt ended in this kind of failure. */
export function statusForUpstreamKind(kind: UpstreamFailureKind): number {
  switch (kind) {
    case 'rate_limited':
      return 429;
    // Anthropic's own status for it: its SDKs retry it and Claude Code reports "overloaded".
    case 'overloaded':
      return 529;
    // Anthropic's timeout_error, for a request that could not finish in time.
    case 'timeout':
      return 504;
    case 'invalid_request':
      return 400;
    case 'request_too_large':
      return 413;
    case 'server_error':
    case 'connection':
    case 'authentication':
    case 'not_found':
    case 'refusal':
    case 'malformed_response':
      return 502;
    default: {
      const unreachable: never = kind;
      throw new Error(`unknown upstream failure kind ${String(unreachable)}`);
    }
  }
}

// Statuses that say "the same request may succeed later": a plan that failed only in these ways answers 503.
const TRY_LATER = new Set([429, 503, 504, 529]);

/**
 * The status of a request every attempt of which failed, from the statuses of its failures: their common
 * status when they agree (529 when every upstream was overloaded, 504 when each timed out, as Anthropic
 * answers), 503 when each says "try later" in different ways (rate limits, overloads, timeouts), else 502.
 */
export function statusForFailures(statuses: readonly number[]): number {
  const first = statuses[0];
  if (first === undefined) return 502;
  if (statuses.every((status) => status === first)) return first;
  return statuses.every((status) => TRY_LATER.has(status)) ? 503 : 502;
}
