import { describe, expect, it } from 'vitest';
import { APICallError, TypeValidationError } from '@ai-sdk/provider';
import { billedUsageOfFinish, billedUsageOfResponsesError } from '#src/providers/ai-sdk/responses-billed-usage.ts';

const USAGE = { input_tokens: 1240, input_tokens_details: { cached_tokens: 1024 }, output_tokens: 37, output_tokens_details: { reasoning_tokens: 12 }, total_tokens: 1277 };
const BILLED = { input_tokens: 216, output_tokens: 37, cache_read_input_tokens: 1024, cache_creation_input_tokens: 0, output_tokens_details: { thinking_tokens: 12 } };
const failedBody = (usage: unknown) => ({ id: 'resp_1', object: 'response', status: 'failed', error: { code: 'server_error', message: 'boom' }, output: [], usage });
const callError = (fields: { data?: unknown; responseBody?: unknown }) =>
  new APICallError({ message: 'failed', url: 'http://127.0.0.1/v1/responses', requestBodyValues: {}, statusCode: 500, ...(fields as { data?: unknown; responseBody?: string }) });

describe('billedUsageOfResponsesError', () => {
  it.each<[string, unknown, object | undefined]>([
    ['a stream failing before output: the response.failed frame as data', callError({ data: { type: 'response.failed', sequence_number: 2, response: { error: { message: 'boom' }, usage: USAGE } } }), BILLED],
    ['a JSON body the SDK refused (an error without type)', new TypeValidationError({ value: failedBody(USAGE), cause: new Error('type required') }), BILLED],
    ['a JSON body as the response body, parsed', callError({ responseBody: failedBody(USAGE) }), BILLED],
    ['a JSON body as the response body, text', callError({ responseBody: JSON.stringify(failedBody(USAGE)) }), BILLED],
    ['usage null, as recorded', callError({ data: { type: 'response.failed', sequence_number: 3, response: { usage: null } } }), undefined],
    ['a body that did not fail', callError({ responseBody: { ...failedBody(USAGE), status: 'completed' } }), undefined],
    ['an HTTP error body', callError({ responseBody: '{"error":{"message":"quota","type":"insufficient_quota"}}' }), undefined],
    ['counts missing', callError({ data: { type: 'response.failed', response: { usage: { input_tokens: 5 } } } }), undefined],
    ['anything else', new Error('reset'), undefined],
  ])('%s', (_name, error, expected) => {
    const usage = billedUsageOfResponsesError(error);
    if (expected === undefined) expect(usage).toBeUndefined();
    else expect(usage).toMatchObject(expected);
  });
});

describe('billedUsageOfFinish', () => {
  it('takes reported counts and leaves missing ones unbilled', () => {
    const reported = { inputTokens: { total: 40, noCache: 40, cacheRead: 0, cacheWrite: undefined }, outputTokens: { total: 3, text: 3, reasoning: 0 } };
    expect(billedUsageOfFinish(reported)).toMatchObject({ input_tokens: 40, output_tokens: 3 });
    const missing = { inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: undefined, text: undefined, reasoning: undefined } };
    expect(billedUsageOfFinish(missing)).toBeUndefined();
  });
});
