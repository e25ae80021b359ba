import { describe, expect, it } from 'vitest';
import { UpstreamError } from '#src/errors.ts';
import { mapAiSdkError } from '#src/providers/ai-sdk/map-ai-sdk-error.ts';
import { statusOfStreamError, upstreamErrorOfStreamError } from '#src/providers/ai-sdk/map-stream-error.ts';

const QUOTA = 'You exceeded your current quota, please check your plan and billing details.';

/**
 * In-stream errors as the AI SDK provider packages put them in an `error` part: OpenAI's (Chat, Responses),
 * Gemini's and Bedrock's provider stream error (`statusCode` read by the package), OpenAI-compatible vendors'
 * raw `error` object, and an Anthropic error type relayed as it is.
 */
const cases: Array<[string, Record<string, unknown>, string, number | undefined]> = [
  ['OpenAI 400', { message: "Invalid value for 'messages'.", type: 'invalid_request_error', code: null, statusCode: 400, isRetryable: false }, 'invalid_request', 400],
  ['OpenAI 404 model_not_found', { message: 'The model does not exist.', type: 'invalid_request_error', code: 'model_not_found', statusCode: 404, isRetryable: false }, 'not_found', 404],
  ['OpenAI 429 rate_limit_exceeded', { message: 'Rate limit reached.', type: 'requests', code: 'rate_limit_exceeded', statusCode: 429, isRetryable: true }, 'rate_limited', 429],
  ['OpenAI insufficient_quota', { message: QUOTA, type: 'insufficient_quota', code: 'insufficient_quota', statusCode: 429, isRetryable: false }, 'authentication', 429],
  ['OpenAI 500', { message: 'The server had an error.', type: 'server_error', code: null, statusCode: 500, isRetryable: true }, 'server_error', 500],
  ['OpenAI-compatible model_not_found', { message: 'The model does not exist.', type: 'invalid_request_error', param: null, code: 'model_not_found' }, 'not_found', 404],
  ['OpenAI-compatible 400, no code', { message: 'Bad tool schema.', type: 'invalid_request_error', param: null, code: null }, 'invalid_request', 400],
  ['OpenAI-compatible, numeric code', { message: 'Too many requests.', code: 429 }, 'rate_limited', 429],
  ['OpenAI-compatible, wrapped', { error: { message: 'Internal error.', type: 'server_error', code: null } }, 'server_error', undefined],
  ['Groq capacity_exceeded', { message: 'Flex tier capacity exceeded.', type: 'capacity_exceeded', code: 'capacity_exceeded' }, 'overloaded', 503],
  ['Gemini RESOURCE_EXHAUSTED', { message: QUOTA, type: 'RESOURCE_EXHAUSTED', code: 429, statusCode: 429, isRetryable: true }, 'rate_limited', 429],
  ['Gemini FAILED_PRECONDITION, no code', { message: 'User location is not supported.', type: 'FAILED_PRECONDITION', statusCode: 400, isRetryable: false }, 'invalid_request', 400],
  ['Gemini PERMISSION_DENIED, no code', { message: 'Permission denied.', type: 'PERMISSION_DENIED', statusCode: 403, isRetryable: false }, 'authentication', 403],
  ['Gemini raw UNAVAILABLE', { message: 'The model is overloaded.', status: 'UNAVAILABLE' }, 'overloaded', 503],
  ['Bedrock modelStreamErrorException', { message: 'Model failed.', type: 'modelStreamErrorException', statusCode: 424, isRetryable: true }, 'server_error', 424],
  ['Bedrock throttlingException', { message: 'Too many tokens.', type: 'throttlingException', statusCode: 429, isRetryable: true }, 'rate_limited', 429],
  ['Bedrock validationException', { message: 'Malformed input request.', type: 'validationException', statusCode: 400, isRetryable: false }, 'invalid_request', 400],
  ['Bedrock serviceUnavailableException', { message: 'Service unavailable.', type: 'serviceUnavailableException', statusCode: 503, isRetryable: true }, 'overloaded', 503],
  ['Anthropic overloaded_error', { type: 'overloaded_error', message: 'Overloaded' }, 'overloaded', 503],
  ['Anthropic request_too_large', { type: 'request_too_large', message: 'Request exceeds the maximum size' }, 'request_too_large', 413],
  ['Anthropic billing_error', { type: 'billing_error', message: 'Your credit balance is too low.' }, 'authentication', 402],
  ['a content filter', { type: 'content_filter', message: 'Blocked.' }, 'refusal', undefined],
  ['nothing to go by', { message: 'Something happened.' }, 'server_error', undefined],
];

describe('upstreamErrorOfStreamError', () => {
  it.each(cases)('%s', (_name, error, kind, status) => {
    const mapped = upstreamErrorOfStreamError(error, 'vendor');
    expect({ kind: mapped.kind, upstreamStatus: mapped.upstreamStatus }).toEqual({ kind, upstreamStatus: 200 });
    expect(statusOfStreamError(error)).toBe(status);
    // mapAiSdkError hands an error part's plain object to it.
    expect((mapAiSdkError(error, 'vendor') as UpstreamError).kind).toBe(kind);
  });

  it("a 400 is the vendor's 400: its words in the message, no fallback", () => {
    const mapped = upstreamErrorOfStreamError({ message: 'Unknown parameter frobnicate.', type: 'invalid_request_error', code: 'unknown_parameter', statusCode: 400 }, 'groq');
    expect({ status: mapped.status, fallbackEligible: mapped.fallbackEligible }).toEqual({ status: 400, fallbackEligible: false });
    expect(mapped.publicMessage).toBe('Invalid request parameters: groq rejected the request: Unknown parameter frobnicate.');
  });

  it('removes the call key from the words and the body it keeps', () => {
    const key = 'byok-key-without-a-known-shape-0001';
    const mapped = upstreamErrorOfStreamError({ message: `Key ${key} may not use this parameter.`, type: 'invalid_request_error', statusCode: 400 }, 'compat', [key]);
    expect(mapped.publicMessage).not.toContain(key);
    expect(mapped.rawBody).not.toContain(key);
  });
});
