/**
 * Each attempt's CLIENT span is the inference call of the OpenTelemetry GenAI conventions and carries that
 * call's own `gen_ai.usage.*`, `gen_ai.response.model`, `gen_ai.response.finish_reasons` and
 * `gen_ai.response.id`, not only the generation span; a failed attempt carries `error.type` and an error
 * status, and no usage. The client is the Anthropic SDK; Alpha answers 529 and Beta the recorded Anthropic
 * answer (12 input tokens, 29 output as JSON and 30 streamed), and a tool
 * loop's two scripted steps each show their own usage and finish reason on the attempt that served them. The
 * OTLP/protobuf export is decoded as a collector would.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicStep, reply } from '#test/helpers/fake-upstreams/index.ts';
import { callApi } from '#test/helpers/management-api.ts';
import { startCaptureServer, type CaptureServer } from '#test/helpers/capture-server.ts';
import { decodeTraceExport, type DecodedSpan } from '#test/helpers/otlp-decode.ts';
import { ALPHA_FIRST } from '#test/integration/routing/routing-support.ts';
import { startRecordsGateway, type RecordsGateway } from './observability-support.ts';

const VENDOR_MODEL = 'claude-sonnet-4-5-20250929';
const SPAN_KIND_CLIENT = 3;
const STATUS_ERROR = 2;
const USAGE_KEYS = ['gen_ai.usage.input_tokens', 'gen_ai.usage.output_tokens', 'gen_ai.usage.cache_read.input_tokens', 'gen_ai.usage.cache_write.input_tokens'];

let setup: RecordsGateway;
let client: Anthropic;
let collector: CaptureServer;

const spans = (): DecodedSpan[] => collector.requests.filter((request) => request.path === '/v1/traces').flatMap((request) => decodeTraceExport(request.body, request.headers['content-type']));

/** The CLIENT spans of generation `id`, in attempt order, once they arrived. */
async function attemptSpans(id: string, count: number): Promise<DecodedSpan[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    await setup.gateway.server.flushRecords();
    const all = spans();
    const generation = all.find((span) => span.attributes['switchboard.generation.id'] === id);
    if (generation) {
      const traced = all.filter((span) => span.traceId === generation.traceId && span.kind === SPAN_KIND_CLIENT);
      if (traced.length >= count) return traced.sort((a, b) => Number(a.attributes['switchboard.attempt.index']) - Number(b.attributes['switchboard.attempt.index']));
    }
    if (Date.now() > deadline) throw new Error(`no attempt spans of ${id} arrived`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const body = { model: 'test/primary', max_tokens: 64, messages: [{ role: 'user' as const, content: 'Hello there' }], ...ALPHA_FIRST };

beforeAll(async () => {
  collector = await startCaptureServer({ status: 200, body: {} });
  setup = await startRecordsGateway();
  client = new Anthropic({ baseURL: `${setup.gateway.origin}/api`, authToken: setup.gateway.api_key, apiKey: null, maxRetries: 0 });
  const created = await callApi(setup.gateway.baseUrl, 'POST', '/observability/destinations', { key: setup.gateway.management_key, body: { name: 'otlp', kind: 'otlp', endpoint: `${collector.url}/v1/traces`, protocol: 'http/protobuf' } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
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

    const [failed, served] = await attemptSpans(id, 2);
    expect(failed?.attributes).toMatchObject({ 'error.type': 'overloaded', 'http.response.status_code': 529 });
    // `error.type` says how it failed; the gateway's own status would only repeat it.
    expect(failed?.attributes).not.toHaveProperty(['switchboard.attempt.status']);
    expect(failed?.status.code).toBe(STATUS_ERROR);
    for (const key of [...USAGE_KEYS, 'gen_ai.response.finish_reasons', 'gen_ai.response.id', 'gen_ai.response.model']) expect(failed?.attributes).not.toHaveProperty([key]);

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

    const calls = await attemptSpans(id, 2);
    expect(calls.map((span) => [span.attributes['gen_ai.usage.input_tokens'], span.attributes['gen_ai.usage.output_tokens'], span.attributes['gen_ai.usage.cache_read.input_tokens'], span.attributes['gen_ai.response.finish_reasons']])).toEqual([
      [27, 5, 7, ['tool_use']],
      [30, 4, 0, ['end_turn']],
    ]);
    for (const span of calls) expect(span.attributes['gen_ai.response.model']).toEqual(expect.any(String));
  });
});
