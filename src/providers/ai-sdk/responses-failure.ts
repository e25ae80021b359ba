/**
 * The gateway error of an OpenAI Responses answer that ended `failed`, read from what the AI SDK threw. A
 * stream's `response.failed` reaches the gateway before output as an `APICallError`, after it as an `error`
 * part (a plain object): both carry the frame as `data` and the status the SDK derived from `error.code`. A
 * JSON body with `status: "failed"` reaches it as a `TypeValidationError` (the failed response's `error` has
 * no `type`, which the SDK's schema requires) or, when it has one, as an `APICallError` with a made-up 400 and
 * the body as `responseBody`. All carry the same response object, so one function classifies them from the
 * vendor's `error.code`, as the SDK classifies the stream's frame: a JSON answer fails as the stream would.
 * Pure functions.
 * @see https://platform.openai.com/docs/api-reference/responses/object (status, error)
 * @see https://platform.openai.com/docs/guides/error-codes (the codes of `response.error`)
 */
import { APICallError, TypeValidationError } from '@ai-sdk/provider';
import type { UpstreamError } from '#src/errors.ts';
import { upstreamErrorFromResponse } from '#src/providers/map-upstream-failure.ts';
import { failedResponseOf } from '#src/providers/ai-sdk/responses-billed-usage.ts';

/** The `error` of a failed response: the vendor's code and message. */
interface ResponsesFailure {
  code: string | number | undefined;
  message: string | undefined;
}

function failureOf(response: Record<string, unknown>): ResponsesFailure | undefined {
  const error = response.error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return {
    code: typeof code === 'string' || typeof code === 'number' ? code : undefined,
    message: typeof message === 'string' ? message : undefined,
  };
}

/**
 * The HTTP status a failed response's `error.code` stands for, as the AI SDK's OpenAI provider derives it
 * for a `response.failed` frame (`getStatusCode` in its openai-stream-error.ts, which it does not export): a
 * status given as the code, else the code's words, else 500. Only reached for a JSON body: a stream's error
 * already carries the SDK's own status.
 */
export function statusOfFailureCode(code: string | number | undefined): number {
  const numeric = typeof code === 'string' && /^\d{3}$/.test(code) ? Number(code) : code;
  if (typeof numeric === 'number' && Number.isInteger(numeric) && numeric >= 400 && numeric <= 599) return numeric;
  const words = String(code ?? '').toLowerCase();
  if (words.includes('insufficient_quota') || words.includes('rate_limit')) return 429;
  if (words.includes('authentication')) return 401;
  if (words.includes('permission')) return 403;
  if (words.includes('not_found')) return 404;
  if (['invalid', 'bad_request', 'context_length'].some((term) => words.includes(term))) return 400;
  if (words.includes('overload')) return 503;
  if (words.includes('timeout')) return 504;
  return 500;
}

/**
 * The gateway error of a Responses call that ended `failed` (a JSON body or a stream's `response.failed`,
 * before or after output), classified from the vendor's code and worded with its message; undefined for any other
 * error. `secrets`, what the call was made with (`callSecrets`), never appear in it.
 */
export function upstreamErrorOfFailedResponse(error: unknown, provider: string, secrets: readonly string[] = []): UpstreamError | undefined {
  let carrier: unknown;
  let status: number | undefined;
  const { data, statusCode } = (typeof error === 'object' && error !== null ? error : {}) as { data?: unknown; statusCode?: unknown };
  if ((data as { type?: unknown } | undefined)?.type === 'response.failed') {
    // The stream's frame (thrown before output, or the `error` part after it) comes with the status the SDK
    // derived from its code; a JSON body's error has none.
    [carrier, status] = [data, typeof statusCode === 'number' ? statusCode : undefined];
  } else if (APICallError.isInstance(error)) carrier = error.responseBody;
  else if (TypeValidationError.isInstance(error)) carrier = error.value;
  const response = failedResponseOf(carrier);
  const failure = response && failureOf(response);
  if (!failure) return undefined;
  return upstreamErrorFromResponse({
    provider,
    status: status ?? statusOfFailureCode(failure.code),
    // A failed response is an answer: HTTP 200, whether a JSON body or an event stream.
    answeredStatus: 200,
    body: typeof carrier === 'string' ? carrier : JSON.stringify(carrier),
    ...(failure.message === undefined ? {} : { vendorMessage: failure.message }),
    secrets,
    ...(typeof failure.code === 'string' ? { errorCode: failure.code } : {}),
  });
}
