/**
 * Turns what went wrong on the wire (an HTTP status, a network error) into the gateway's typed
 * `UpstreamError`. Shared by every adapter so that "retryable" means the same thing everywhere.
 */
import { UpstreamError } from '#src/errors.ts';
import { kindForStatus, kindForVendorErrorCode } from '#src/error-vocabulary.ts';
import { promptTooLongWords } from '#src/providers/map-context-length-message.ts';
import { redact, withoutSecrets } from '#src/logger.ts';

// Anthropic answers an exhausted account with a 400 "Your credit balance is too low…": a fault of the key,
// not of the request, so the next key or provider should be tried.
const OUT_OF_CREDIT = /credit balance is too low|insufficient[_ ]quota|exceeded your current quota/i;
// Gemini words its per-minute limits as OpenAI words an empty account ("You exceeded your current quota"),
// but says RESOURCE_EXHAUSTED: a rate limit that passes, with its wait in RetryInfo.
const ANTHROPIC_TOO_LONG = /^prompt is too long/i;
const GOOGLE_RATE_LIMIT = /RESOURCE_EXHAUSTED/;
const GOOGLE_RETRY_DELAY = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/;

// A wait only means something where the same request may succeed later.
const WAITING_KINDS = new Set(['rate_limited', 'overloaded']);

/**
 * Whole seconds an upstream's `retry-after` asks for: delay-seconds, or an HTTP date (RFC 9110 §10.2.3);
 * undefined for anything else. Read only on the error path.
 */
export function retryAfterSeconds(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text));
  // Only a date names its day and zone in letters; Date.parse would read "-4" as a year.
  const date = /[a-z]/i.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/**
 * An `UpstreamError` for a non-2xx answer. For a request the vendor rejected as invalid, the vendor's own
 * one-line message (redacted, bounded) is kept, after Anthropic's words when it refuses the prompt's length:
 * clients such as Claude Code act on texts like "prompt is too long". The body itself is kept for logs only.
 * `secrets`, what the call was made with (`callSecrets`), are removed from both in any form the vendor quotes.
 */
export function upstreamErrorFromResponse(options: {
  provider: string;
  status: number;
  body: string;
  vendorMessage?: string;
  secrets?: readonly string[];
  /** The answer's `retry-after` header, as received. */
  retryAfter?: string | string[] | undefined;
  /** The vendor's error class or code (Bedrock's exception name, OpenAI-style `error.code`), when it sent one. */
  errorCode?: string | undefined;
  /**
   * The HTTP status the upstream answered with, when the error came inside an answer (an in-stream error
   * under a 200, a failed OpenAI Responses answer) and `status` is the one the error stands for.
   */
  answeredStatus?: number;
}): UpstreamError {
  const vendorMessage = options.vendorMessage === undefined ? undefined : withoutSecrets(options.vendorMessage, options.secrets ?? []);
  const outOfCredit = (OUT_OF_CREDIT.test(vendorMessage ?? '') || options.errorCode === 'insufficient_quota') && !GOOGLE_RATE_LIMIT.test(options.body);
  const kind = outOfCredit ? 'authentication' : (kindForVendorErrorCode(options.errorCode) ?? kindForStatus(options.status));
  const detail = kind === 'invalid_request' && vendorMessage ? `: ${redact(vendorMessage).slice(0, 500)}` : '';
  // Anthropic's words before the vendor's, as the gateway's own estimate says it: Claude Code acts on them.
  // An Anthropic-format upstream's own line already says them.
  const tooLong = kind === 'invalid_request' && vendorMessage && !ANTHROPIC_TOO_LONG.test(vendorMessage) ? promptTooLongWords(vendorMessage) : undefined;
  const wait = WAITING_KINDS.has(kind) ? (retryAfterSeconds(options.retryAfter) ?? googleRetryDelay(options.body)) : undefined;
  return new UpstreamError({
    provider: options.provider,
    kind,
    upstreamStatus: options.answeredStatus ?? options.status,
    // Cut well past the kept length before the search, so a key across the final cut is still found whole.
    rawBody: withoutSecrets(options.body.slice(0, 16_384), options.secrets ?? []).slice(0, 4096),
    ...(kind === 'invalid_request' ? { message: `Invalid request parameters: ${tooLong ? `${tooLong}; ` : ''}${options.provider} rejected the request${detail}` } : {}),
    ...(wait === undefined ? {} : { retryAfterSeconds: wait }),
  });
}

// Gemini sends no retry-after; its 429 body names the wait (`"retryDelay": "34.4s"`).
function googleRetryDelay(body: string): number | undefined {
  const seconds = GOOGLE_RETRY_DELAY.exec(body)?.[1];
  return seconds === undefined ? undefined : Math.ceil(Number(seconds));
}

const CONNECTION_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/** An `UpstreamError` for a thrown network-level failure (reset, refused, timeout, abort). */
export function upstreamErrorFromThrown(provider: string, error: unknown): UpstreamError {
  if (error instanceof UpstreamError) return error;
  const code = findCode(error);
  const name = (error as { name?: string } | undefined)?.name;
  if ((code && TIMEOUT_CODES.has(code)) || name === 'TimeoutError') return new UpstreamError({ provider, kind: 'timeout', cause: error });
  if (name === 'AbortError' || code === 'UND_ERR_ABORTED') return new UpstreamError({ provider, kind: 'timeout', message: 'The request was cancelled', cause: error });
  if (code && CONNECTION_CODES.has(code)) return new UpstreamError({ provider, kind: 'connection', cause: error });
  if (error instanceof SyntaxError) return new UpstreamError({ provider, kind: 'malformed_response', cause: error });
  return new UpstreamError({ provider, kind: 'connection', cause: error });
}

function findCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
