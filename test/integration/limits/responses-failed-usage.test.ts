/**
 * OpenAI Responses answers that end in `response.failed` or `response.incomplete` carry the vendor's `usage`:
 * what it read and wrote before it stopped, which it bills. The gateway records and charges those counts (not
 * an estimate, not nothing), in streams and JSON answers alike. Wire format as recorded in
 * vendor-recordings/openai-responses/openai-error.1.chunks.txt (a `response.failed` event carrying the whole
 * response object, `usage` included).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeOpenAiResponses, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { catalogYaml } from '#test/integration/routing/routing-support.ts';
import { generationOf } from '#test/integration/observability/observability-support.ts';
import { readSseEvents } from '#src/providers/sse-reader.ts';
import type { RawSseEvent } from '#src/providers/provider-adapter.ts';
import { issueLimitedKey, LIMITED_PRICES, LIMITED_REQUEST, listedKey } from './limits-support.ts';
import { responsesProviderYaml } from '#test/integration/routing/responses-gateway-support.ts';

/** USD per million cache-read tokens. */
const CACHE_READ_PRICE = 100;
/** What the vendor reports: 1,240 prompt tokens of which 1,024 cached, 37 output tokens of which 12 reasoning. */
const USAGE = { input_tokens: 1240, input_tokens_details: { cached_tokens: 1024 }, output_tokens: 37, output_tokens_details: { reasoning_tokens: 12 }, total_tokens: 1277 };
const EXPECTED = { input: 1240 - 1024, cacheRead: 1024, output: 37 };
const EXPECTED_COST = (EXPECTED.input * LIMITED_PRICES.input + EXPECTED.cacheRead * CACHE_READ_PRICE + EXPECTED.output * LIMITED_PRICES.output) / 1_000_000;

const RESPONSE_ID = 'resp_failedusage0001';
const MESSAGE_ID = 'msg_failedusage0001';
const TEXT = 'The first part of an answer that';
const textPart = (text: string) => ({ type: 'output_text', annotations: [], logprobs: [], text });
const messageItem = (status: string, text: string) => ({ id: MESSAGE_ID, type: 'message', status, role: 'assistant', content: text === '' ? [] : [textPart(text)] });

/** The response object as the vendor sends it in its terminal event or as a JSON body. */
function responseObject(fields: { status: string; error?: unknown; incomplete_details?: unknown; usage: unknown; output: unknown[] }): Record<string, unknown> {
  return {
    id: RESPONSE_ID,
    object: 'response',
    created_at: 1_763_474_589,
    status: fields.status,
    background: false,
    error: fields.error ?? null,
    incomplete_details: fields.incomplete_details ?? null,
    model: 'gpt-test',
    output: fields.output,
    service_tier: 'default',
    store: false,
    usage: fields.usage,
  };
}

const FAILED = { status: 'failed', error: { code: 'server_error', message: 'The server had an error while processing your request.' } };
const INCOMPLETE = { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };

/** A stream that writes `TEXT` and then ends with `terminal` (`response.failed` or `response.incomplete`). */
function streamEndingIn(type: 'response.failed' | 'response.incomplete', fields: typeof FAILED | typeof INCOMPLETE): unknown[] {
  return [
    { type: 'response.created', sequence_number: 0, response: responseObject({ status: 'in_progress', usage: null, output: [] }) },
    { type: 'response.in_progress', sequence_number: 1, response: responseObject({ status: 'in_progress', usage: null, output: [] }) },
    { type: 'response.output_item.added', sequence_number: 2, output_index: 0, item: messageItem('in_progress', '') },
    { type: 'response.content_part.added', sequence_number: 3, item_id: MESSAGE_ID, output_index: 0, content_index: 0, part: textPart('') },
    { type: 'response.output_text.delta', sequence_number: 4, item_id: MESSAGE_ID, output_index: 0, content_index: 0, delta: 'The first part ', logprobs: [] },
    { type: 'response.output_text.delta', sequence_number: 5, item_id: MESSAGE_ID, output_index: 0, content_index: 0, delta: 'of an answer that', logprobs: [] },
    { type, sequence_number: 6, response: responseObject({ ...fields, usage: USAGE, output: [messageItem('incomplete', TEXT)] }) },
  ];
}

/** A stream that fails before any output, its `response.failed` carrying the prompt the vendor read. */
function streamFailingBeforeOutput(): unknown[] {
  return [
    { type: 'response.created', sequence_number: 0, response: responseObject({ status: 'in_progress', usage: null, output: [] }) },
    { type: 'response.in_progress', sequence_number: 1, response: responseObject({ status: 'in_progress', usage: null, output: [] }) },
    { type: 'response.failed', sequence_number: 2, response: responseObject({ ...FAILED, usage: USAGE, output: [] }) },
  ];
}

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeOpenAiResponses();
  gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      [responsesProviderYaml(upstream, 'sk-responses-failedusage-0001')],
      [
        [
          '  test/responses:',
          '    name: test/responses',
          '    context_length: 200000',
          '    capabilities: { tools: true, vision: true, pdf: true, thinking: true, caching: true, structured_output: true }',
          `    endpoints: [{ provider: up-responses, model: gpt-test, pricing: { input: ${LIMITED_PRICES.input}, output: ${LIMITED_PRICES.output}, cache_read: ${CACHE_READ_PRICE} } }]`,
        ].join('\n'),
      ],
    ),
    env: { SWITCHBOARD_RECORD_FLUSH_MS: '50' },
  });
}, 120_000);
beforeEach(() => upstream.clear());
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

/** The key's spending as `GET /keys` lists it, once it has reached `atLeast` (settling is off the request path). */
async function spentBy(hash: string, atLeast: number): Promise<number> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const cost = (await listedKey(gateway, hash)).usage.cost as number;
    if (cost >= atLeast - 1e-12 || Date.now() > deadline) return cost;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function post(key: string, stream: boolean): Promise<{ status: number; id: string; body?: Record<string, any>; events: RawSseEvent[] }> {
  const response = await fetch(`${gateway.baseUrl}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...LIMITED_REQUEST, model: 'test/responses', ...(stream ? { stream: true } : {}) }),
  });
  const id = response.headers.get('x-generation-id') ?? '';
  if (!stream || !response.headers.get('content-type')?.startsWith('text/event-stream')) return { status: response.status, id, body: (await response.json()) as Record<string, any>, events: [] };
  const events: RawSseEvent[] = [];
  if (response.body) for await (const event of readSseEvents(response.body)) events.push(event);
  return { status: response.status, id, events };
}

async function expectCharged(id: string, hash: string, status: string): Promise<void> {
  const record = await generationOf(gateway, id);
  expect(record).toMatchObject({ status, usage_estimated: false, usage: { input_tokens: EXPECTED.input, output_tokens: EXPECTED.output, cache_read_input_tokens: EXPECTED.cacheRead } });
  expect(record.cost).toBeCloseTo(EXPECTED_COST, 12);
  expect(await spentBy(hash, EXPECTED_COST)).toBeCloseTo(EXPECTED_COST, 12);
}

describe('a Responses stream', () => {
  it('ending in response.failed after output: the client gets the error; the vendor usage is recorded and charged', async () => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    upstream.enqueue(reply.events(streamEndingIn('response.failed', FAILED)));
    const call = await post(issued.key, true);
    expect(call.status).toBe(200);
    const names = call.events.map((event) => event.event);
    expect(names[0]).toBe('message_start');
    expect(names.at(-1)).toBe('error');
    expect(names).not.toContain('message_delta');
    await expectCharged(call.id, issued.hash, 'error');
  });

  it('ending in response.incomplete: max_tokens, with the vendor usage in message_delta, the record and the charge', async () => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    upstream.enqueue(reply.events(streamEndingIn('response.incomplete', INCOMPLETE)));
    const call = await post(issued.key, true);
    const delta = JSON.parse(call.events.find((event) => event.event === 'message_delta')?.data ?? '{}') as Record<string, any>;
    expect(delta.delta.stop_reason).toBe('max_tokens');
    expect(delta.usage).toMatchObject({ input_tokens: EXPECTED.input, output_tokens: EXPECTED.output, cache_read_input_tokens: EXPECTED.cacheRead });
    await expectCharged(call.id, issued.hash, 'success');
  });

  it('failing before any output: the client gets the error; the prompt the vendor read is recorded and charged', async () => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    upstream.enqueue(reply.events(streamFailingBeforeOutput()));
    const call = await post(issued.key, true);
    expect(call.status).toBeGreaterThanOrEqual(500);
    await expectCharged(call.id, issued.hash, 'error');
  });

  it('failing as recorded (an error event, then response.failed with usage null): an error, charged nothing', async () => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    upstream.enqueue(reply.fixture('openai-error.1.chunks.txt'));
    const call = await post(issued.key, true);
    expect(call.status).toBeGreaterThanOrEqual(400);
    const record = await generationOf(gateway, call.id);
    expect(record).toMatchObject({ status: 'error', cost: 0, usage: { input_tokens: 0, output_tokens: 0 } });
  });
});

describe('a Responses JSON answer', () => {
  it('with status incomplete: max_tokens, the vendor usage in the answer, the record and the charge', async () => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    upstream.enqueue(reply.json(responseObject({ ...INCOMPLETE, usage: USAGE, output: [messageItem('incomplete', TEXT)] })));
    const call = await post(issued.key, false);
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body?.stop_reason).toBe('max_tokens');
    await expectCharged(call.id, issued.hash, 'success');
  });

  it('with status failed: the client gets the error; the vendor usage is recorded and charged', async () => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    upstream.enqueue(reply.json(responseObject({ ...FAILED, usage: USAGE, output: [messageItem('incomplete', TEXT)] })));
    const call = await post(issued.key, false);
    expect(call.status, JSON.stringify(call.body)).toBeGreaterThanOrEqual(500);
    await expectCharged(call.id, issued.hash, 'error');
  });
});
