/**
 * Each attempt's CLIENT span is the inference call of the OpenTelemetry GenAI conventions and carries that
 * call's own `gen_ai.usage.*`, `gen_ai.response.model`, `gen_ai.response.finish_reasons` and
 * `gen_ai.response.id`, not only the generation span; a failed attempt carries `error.type`, an error
 * status and the finish reason `error`, and no usage. The client is the Anthropic SDK; Alpha answers 529 and Beta the recorded Anthropic
 * answer (12 input tokens, 29 output as JSON and 30 streamed), and a tool
 * loop's two scripted steps each show their own usage and finish reason on the attempt that served them. The
 * OTLP/protobuf export is decoded as a collector would.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicStep, reply } from '#test/helpers/fake-upstreams/index.ts';
import type { CaptureServer } from '#test/helpers/capture-server.ts';
import { ALPHA_FIRST } from '#test/integration/routing/routing-support.ts';
import { attemptSpans, startTracedGateway, type RecordsGateway } from './observability-support.ts';

const VENDOR_MODEL = 'claude-sonnet-4-5-20250929';
const STATUS_ERROR = 2;
const USAGE_KEYS = ['gen_ai.usage.input_tokens', 'gen_ai.usage.output_tokens', 'gen_ai.usage.cache_read.input_tokens', 'gen_ai.usage.cache_write.input_tokens'];

let setup: RecordsGateway;
let client: Anthropic;
let collector: CaptureServer;

const body = { model: 'test/primary', max_tokens: 64, messages: [{ role: 'user' as const, content: 'Hello there' }], ...ALPHA_FIRST };

beforeAll(async () => {
  ({ setup, client, collector } = await startTracedGateway());
}, 60_000);
afterAll(async () => {
  await setup?.close();
  await collector?.close();
});

describe('usage on the attempt spans', () => {
  it.each([
    ['JSON', false, 29],
    ['a stream', true, 30],
  ])('%s after a failover: the serving call its usage, finish reason, id and model; the failed one error.type', async (_case, stream, outputTokens) => {
    setup.alpha.enqueue(reply.error(529));
    setup.beta.enqueue(reply.fixture('anthropic-text'));
    // The generation id, and the message id the client got (the vendor's, passed through).
    let id: string;
    let messageId = '';
    if (stream) {
      const { data, response } = await client.messages.create({ ...body, stream: true }).withResponse();
      for await (const event of data) if (event.type === 'message_start') messageId = event.message.id;
      id = response.headers.get('x-generation-id') ?? '';
    } else {
      const { data, response } = await client.messages.create(body).withResponse();
      [id, messageId] = [response.headers.get('x-generation-id') ?? '', data.id];
    }
    expect(messageId).toMatch(/^msg_01/);

    const [failed, served] = await attemptSpans(setup.gateway, collector, id, 2);
    expect(failed?.attributes).toMatchObject({ 'error.type': 'overloaded', 'http.response.status_code': 529 });
    // `error.type` says how it failed; the gateway's own status would only repeat it.
    expect(failed?.attributes).not.toHaveProperty(['switchboard.attempt.status']);
    expect(failed?.status.code).toBe(STATUS_ERROR);
    for (const key of [...USAGE_KEYS, 'gen_ai.response.id', 'gen_ai.response.model']) expect(failed?.attributes).not.toHaveProperty([key]);
    // No finish reason came: the conventions' `error` (inference-span-conventions.test.ts).
    expect(failed?.attributes['gen_ai.response.finish_reasons']).toEqual(['error']);

    expect(served?.attributes).toMatchObject({
      'gen_ai.request.model': 'up-primary-beta',
      'gen_ai.response.model': VENDOR_MODEL,
      'gen_ai.response.id': messageId,
      'gen_ai.response.finish_reasons': ['end_turn'],
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': outputTokens,
      'gen_ai.usage.cache_read.input_tokens': 0,
      'gen_ai.usage.cache_write.input_tokens': 0,
    });
    expect(served?.attributes).not.toHaveProperty(['error.type']);
    expect(served?.status.code).not.toBe(STATUS_ERROR);
  });

  it("a tool loop: each step's serving call carries that step's own usage and finish reason", async () => {
    setup.alpha.enqueue(
      anthropicStep({ calls: [{ name: 'datetime', input: { timezone: 'Europe/Paris' } }], usage: { input: 20, output: 5, cacheRead: 7 } }),
      anthropicStep({ text: 'It is noon.', usage: { input: 30, output: 4 } }),
    );
    const { response } = await client.messages.create({ ...body, tools: [{ type: 'gateway:datetime' }] } as unknown as Anthropic.MessageCreateParamsNonStreaming).withResponse();
    const id = response.headers.get('x-generation-id') ?? '';

    const calls = await attemptSpans(setup.gateway, collector, id, 2);
    expect(calls.map((span) => [span.attributes['gen_ai.usage.input_tokens'], span.attributes['gen_ai.usage.output_tokens'], span.attributes['gen_ai.usage.cache_read.input_tokens'], span.attributes['gen_ai.response.finish_reasons']])).toEqual([
      [27, 5, 7, ['tool_use']],
      [30, 4, 0, ['end_turn']],
    ]);
    for (const span of calls) expect(span.attributes['gen_ai.response.model']).toEqual(expect.any(String));
  });
});
