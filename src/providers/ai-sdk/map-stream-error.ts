/**
 * The gateway error of a vendor's error inside a stream that answered HTTP 200: what an AI SDK provider
 * package puts in an `error` stream part as a plain object. OpenAI (Chat and Responses), Gemini and Bedrock
 * hand on the SDK's provider stream error (`{message, type, code, statusCode, isRetryable, data}`, the status
 * read from the vendor's frame by the package itself); OpenAI-compatible vendors their raw `error` object
 * (`{message, type, param, code}`, sometimes wrapped as `{error: {...}}`). Each is classified as an HTTP error
 * of the status it stands for, by the same rule as a JSON error (`upstreamErrorFromResponse`): a 4xx the
 * request caused is the vendor's 400 with its words and no fallback, a retryable one moves on. Its
 * `upstreamStatus` is the 200 the upstream answered with. Pure functions.
 * @see https://platform.openai.com/docs/guides/error-codes
 * @see https://ai.google.dev/gemini-api/docs/troubleshooting (status names)
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html (stream exceptions)
 */
import { UpstreamError } from '#src/errors.ts';
import { upstreamErrorFromResponse } from '#src/providers/map-upstream-failure.ts';
import { withoutSecrets } from '#src/logger.ts';

/** The status an Anthropic error type (a vendor relaying Anthropic's `error` event) is answered with. */
const STATUS_BY_ANTHROPIC_TYPE: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  overloaded_error: 529,
  timeout_error: 504,
};

/**
 * The status a vendor's error words (its code, type or status name, lower case) stand for, in the order the
 * AI SDK's OpenAI provider reads OpenAI's (its `getStatusCode`), with other vendors' words added (Gemini's
 * status names, Bedrock's stream exceptions); undefined when no word names one.
 */
export function statusOfErrorWords(words: string): number | undefined {
  if (['quota', 'rate_limit', 'ratelimit', 'throttl', 'resource_exhausted'].some((term) => words.includes(term))) return 429;
  if (words.includes('authentication') || words.includes('unauthenticated')) return 401;
  if (words.includes('permission')) return 403;
  if (words.includes('not_found')) return 404;
  if (['invalid', 'bad_request', 'context_length', 'validation', 'failed_precondition'].some((term) => words.includes(term))) return 400;
  if (['overload', 'unavailable', 'capacity'].some((term) => words.includes(term))) return 503;
  if (words.includes('timeout') || words.includes('deadline_exceeded')) return 504;
  return undefined;
}

/** An HTTP error status given as a number or as three digits; undefined for anything else. */
function errorStatusOf(value: unknown): number | undefined {
  const numeric = typeof value === 'string' && /^\d{3}$/.test(value) ? Number(value) : value;
  return typeof numeric === 'number' && Number.isInteger(numeric) && numeric >= 400 && numeric <= 599 ? numeric : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** An error's code, type and status name, lower case, as words to read. */
function wordsOf(fields: Record<string, unknown>): string {
  return [fields.code, fields.type, fields.status].filter((value) => typeof value === 'string').join(' ').toLowerCase();
}

/**
 * The status an in-stream error stands for: the one its provider package read (`statusCode`), else a status
 * the vendor gave as its code (Gemini's `code`, an OpenAI-compatible vendor's numeric `code`), else the one
 * its words name, else the one its Anthropic error type is answered with; undefined when nothing names one.
 */
export function statusOfStreamError(error: Record<string, unknown>): number | undefined {
  const fields = isRecord(error.error) ? error.error : error;
  const given = errorStatusOf(error.statusCode) ?? errorStatusOf(fields.code) ?? errorStatusOf(fields.status);
  if (given !== undefined) return given;
  const named = statusOfErrorWords(wordsOf(fields));
  if (named !== undefined) return named;
  return typeof fields.type === 'string' ? STATUS_BY_ANTHROPIC_TYPE[fields.type] : undefined;
}

const REFUSAL_WORDS = /content_filter|safety|refus/;

/**
 * The gateway error of a vendor's in-stream error object. One that names no status is a server error
 * (retryable, as a 5xx would be), unless its words say the vendor's filter stopped the answer: a refusal.
 * `secrets`, what the call was made with (`callSecrets`), never appear in it.
 */
export function upstreamErrorOfStreamError(error: Record<string, unknown>, provider: string, secrets: readonly string[] = []): UpstreamError {
  const fields = isRecord(error.error) ? error.error : error;
  const status = statusOfStreamError(error);
  const body = JSON.stringify(error);
  if (status === undefined && REFUSAL_WORDS.test(wordsOf(fields))) {
    return new UpstreamError({ provider, kind: 'refusal', upstreamStatus: 200, rawBody: withoutSecrets(body.slice(0, 16_384), secrets).slice(0, 4096) });
  }
  const code = typeof fields.code === 'string' ? fields.code : typeof fields.type === 'string' ? fields.type : undefined;
  return upstreamErrorFromResponse({
    provider,
    status: status ?? 500,
    answeredStatus: 200,
    body,
    ...(typeof fields.message === 'string' ? { vendorMessage: fields.message } : {}),
    secrets,
    ...(code === undefined ? {} : { errorCode: code }),
  });
}
