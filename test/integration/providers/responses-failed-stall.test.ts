/**
 * An OpenAI Responses upstream that sends `response.failed` and then keeps its connection open without another
 * byte: the gateway answers from `response.failed` itself, not from the stream's end. After output the client
 * hears the in-stream error at once; before output the next provider answers at once (the failure is
 * retryable), whether the AI SDK threw the failure before any output (it came right after
 * `response.in_progress`) or handed it on as a stream part (it came later); and either way the stalled upstream
 * connection is closed. Before, the error waited for an upstream end that never came (the client hung), and a
 * failure the SDK threw before output left the SDK reading the stalled upstream. Driven with the Anthropic SDK;
 * the frames as in vendor-recordings/openai-responses/openai-error.1.chunks.txt.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import type { TestGateway } from '#test/helpers/start-gateway.ts';
import { generationOf } from '#test/integration/observability/observability-support.ts';
import { anthropicClient, resetFakes } from '#test/integration/routing/routing-support.ts';
import { startResponsesOrClaudeGateway } from '#test/integration/routing/responses-gateway-support.ts';

const USAGE = { input_tokens: 21, input_tokens_details: { cached_tokens: 0 }, output_tokens: 4, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 25 };
const SERVER_ERROR = { code: 'server_error', message: 'The server had an error while processing your request. Sorry about that!' };
const ITEM_ID = 'msg_stalled0001';

function responseObject(status: string, error: unknown, usage: unknown): Record<string, unknown> {
  return { id: 'resp_stalled0001', object: 'response', created_at: 1_763_474_589, status, background: false, error, incomplete_details: null, model: 'gpt-test', output: [], service_tier: 'default', store: false, usage };
}

const started = [
  { type: 'response.created', sequence_number: 0, response: responseObject('in_progress', null, null) },
  { type: 'response.in_progress', sequence_number: 1, response: responseObject('in_progress', null, null) },
];
const output = [
  { type: 'response.output_item.added', sequence_number: 2, output_index: 0, item: { id: ITEM_ID, type: 'message', status: 'in_progress', role: 'assistant', content: [] } },
  { type: 'response.content_part.added', sequence_number: 3, item_id: ITEM_ID, output_index: 0, content_index: 0, part: { type: 'output_text', annotations: [], text: '' } },
  { type: 'response.output_text.delta', sequence_number: 4, item_id: ITEM_ID, output_index: 0, content_index: 0, delta: 'Partly there', logprobs: [] },
];
const failed = { type: 'response.failed', sequence_number: 5, response: responseObject('failed', SERVER_ERROR, USAGE) };

/** Events that end in `response.failed`, after which the upstream writes nothing and never closes. */
function stalledAfter(events: readonly unknown[], chunkDelayMs = 0) {
  return reply.events(events, { stallAfterEvents: events.length, chunkDelayMs });
}

/** Rejects when `promise` takes longer than `ms`: a hang fails the test with its reason, not the suite timeout. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([promise, new Promise<T>((_resolve, reject) => setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms))]);
}

let openai: FakeUpstream;
let alpha: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  ({ openai, alpha, gateway } = await startResponsesOrClaudeGateway('sk-responses-stalled-0001'));
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await Promise.all([openai?.close(), alpha?.close()]);
});

beforeEach(() => resetFakes(openai, alpha));

const body = (model: string) => ({ model, max_tokens: 64, stream: true as const, messages: [{ role: 'user' as const, content: 'Hello there' }], provider: { order: ['up-responses', 'alpha'] } });

/** Reads a stream with the Anthropic SDK: the event types it got, and the error it ended with. */
async function read(client: Anthropic, model: string): Promise<{ types: string[]; error: unknown; id: string | null }> {
  const { data: stream, response } = await client.messages.create(body(model) as unknown as Anthropic.MessageCreateParamsStreaming).withResponse();
  const types: string[] = [];
  try {
    for await (const event of stream) types.push(event.type);
    return { types, error: undefined, id: response.headers.get('x-generation-id') };
  } catch (error) {
    return { types, error, id: response.headers.get('x-generation-id') };
  }
}

describe('a Responses upstream that stalls after response.failed', () => {
  it('after output: the client hears the error at once, and the upstream connection is closed', async () => {
    openai.enqueue(stalledAfter([...started, ...output, failed]));
    const { types, error, id } = await within(read(anthropicClient(gateway), 'test/gpt'), 5_000, 'the in-stream error');
    expect(types).toContain('content_block_delta');
    expect(types).not.toContain('message_stop');
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ error: { type: 'api_error' } });
    await within(openai.exchangeClosed(openai.lastRequest()), 2_000, 'the upstream connection closing');
    const record = await generationOf(gateway, id ?? '');
    expect(record).toMatchObject({ status: 'error', http_status: 200, error: { type: 'UpstreamError:server_error' } });
    expect(record.attempts).toMatchObject([{ status: 'server_error', http_status: 200 }]);
  });

  it.each([
    { when: 'right after response.in_progress (the SDK throws it before any output)', chunkDelayMs: 0 },
    { when: 'later (the SDK hands it on as a stream part)', chunkDelayMs: 150 },
  ])('before output, $when: the next provider answers at once, and the upstream connection is closed', async ({ chunkDelayMs }) => {
    openai.enqueue(stalledAfter([...started, { ...failed, sequence_number: 2 }], chunkDelayMs));
    alpha.enqueue(reply.fixture('anthropic-text'));
    const { types, error } = await within(read(anthropicClient(gateway), 'test/gpt-or-claude'), 5_000, 'the fallback answer');
    expect(error).toBeUndefined();
    expect(types.at(-1)).toBe('message_stop');
    expect(alpha.requests).toHaveLength(1);
    await within(openai.exchangeClosed(openai.requests[0] as (typeof openai.requests)[number]), 2_000, 'the upstream connection closing');
  });
});
