/**
 * One error model for an OpenAI Responses answer that ends `failed`: through the real AI SDK provider and a
 * fake Responses server, a JSON body with `status: "failed"` and a stream whose `response.failed` comes
 * before any output fail with the same kind, status, message and fallback behaviour for every code, and one
 * whose `response.failed` follows output with the same kind and message (an in-stream error). The
 * stream's status is the one the SDK derives from the code; the JSON body's is derived by the gateway's copy
 * of that rule (the SDK does not export it), so this table keeps the copy honest when the SDK changes. Codes
 * from OpenAI's error-codes guide and vendor-recordings/openai-responses (`insufficient_quota`, with and
 * without a `type` on the error).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UpstreamError } from '#src/errors.ts';
import { createAiSdkAdapter } from '#src/providers/ai-sdk/ai-sdk-adapter.ts';
import { reply, startFakeOpenAiResponses, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { attemptCall, collectEvents } from '#test/integration/providers/ai-sdk-test-support.ts';

const USAGE = { input_tokens: 9, input_tokens_details: { cached_tokens: 0 }, output_tokens: 0, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 9 };

function responseObject(status: string, error: unknown, usage: unknown): Record<string, unknown> {
  return { id: 'resp_parity0001', object: 'response', created_at: 1_763_474_589, status, background: false, error, incomplete_details: null, model: 'gpt-test', output: [], store: false, usage };
}

const QUOTA = 'You exceeded your current quota, please check your plan and billing details.';

const failures: Array<Record<string, unknown>> = [
  { code: 'server_error', message: 'The server had an error while processing your request.' },
  { code: 'rate_limit_exceeded', message: 'Rate limit reached for gpt-test on tokens per min (TPM).' },
  { code: 'invalid_prompt', message: 'Invalid prompt: flagged as potentially violating our usage policy.' },
  { code: 'context_length_exceeded', message: 'Your input exceeds the context window of this model.' },
  { code: 'insufficient_quota', message: QUOTA },
  { type: 'insufficient_quota', code: 'insufficient_quota', message: QUOTA, param: null },
  { code: 'vector_store_timeout', message: 'Timed out while searching the vector store.' },
  { code: 'server_overloaded', message: 'The engine is currently overloaded.' },
  { code: '503', message: 'Service unavailable.' },
];

let fake: FakeUpstream;
beforeAll(async () => {
  fake = await startFakeOpenAiResponses();
});
beforeEach(() => fake.clear());
afterAll(async () => {
  await fake?.close();
});

async function thrown(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(UpstreamError);
  return error as UpstreamError;
}

const outline = (error: UpstreamError) => ({
  kind: error.kind,
  status: error.status,
  upstreamStatus: error.upstreamStatus,
  message: error.message,
  retryable: error.retryable,
  fallbackEligible: error.fallbackEligible,
  billed: error.billedUsage?.input_tokens,
});

describe('a failed Responses answer, JSON and stream alike', () => {
  const adapter = createAiSdkAdapter({ family: 'openai-responses' });

  it.each(failures.map((failure) => [JSON.stringify(failure), failure] as const))('%s', async (_name, failure) => {
    fake.enqueue(
      reply.json(responseObject('failed', failure, USAGE)),
      reply.events([
        { type: 'response.created', sequence_number: 0, response: responseObject('in_progress', null, null) },
        { type: 'response.failed', sequence_number: 1, response: responseObject('failed', failure, USAGE) },
      ]),
    );
    const json = outline(await thrown(adapter.generate(attemptCall({ family: 'openai-responses', baseUrl: fake.baseURL }))));
    const streamed = outline(await thrown(adapter.stream(attemptCall({ family: 'openai-responses', baseUrl: fake.baseURL }))));
    expect(json.kind).not.toBe('malformed_response');
    expect(json.billed).toBe(9);
    expect(json).toEqual(streamed);
  });

  // After output the client already has its 200 and hears an in-stream error: the same kind and words, the
  // status the upstream answered with (200) rather than one derived from the code.
  it.each(failures.map((failure) => [JSON.stringify(failure), failure] as const))('after output as before it: %s', async (_name, failure) => {
    const item = { id: 'msg_parity0001', type: 'message', status: 'in_progress', role: 'assistant', content: [] };
    fake.enqueue(
      reply.json(responseObject('failed', failure, USAGE)),
      reply.events([
        { type: 'response.created', sequence_number: 0, response: responseObject('in_progress', null, null) },
        { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item },
        { type: 'response.content_part.added', sequence_number: 2, item_id: item.id, output_index: 0, content_index: 0, part: { type: 'output_text', annotations: [], text: '' } },
        { type: 'response.output_text.delta', sequence_number: 3, item_id: item.id, output_index: 0, content_index: 0, delta: 'Partly', logprobs: [] },
        { type: 'response.failed', sequence_number: 4, response: responseObject('failed', failure, USAGE) },
      ]),
    );
    const json = outline(await thrown(adapter.generate(attemptCall({ family: 'openai-responses', baseUrl: fake.baseURL }))));
    const stream = await adapter.stream(attemptCall({ family: 'openai-responses', baseUrl: fake.baseURL }));
    const { events, error } = await collectEvents(stream.events);
    expect(events.map((event) => event.event)).toContain('content_block_delta');
    expect(error).toBeInstanceOf(UpstreamError);
    const streamed = outline(error as UpstreamError);
    expect({ ...streamed, upstreamStatus: json.upstreamStatus }).toEqual(json);
  });
});
