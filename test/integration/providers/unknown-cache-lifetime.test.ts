/**
 * A cache lifetime Anthropic may add (`24h`) in Anthropic's shape: accepted at the top level and on a block,
 * sent to an Anthropic-format upstream as it came, its writes (reported under a key of their own in
 * `usage.cache_creation`) priced at the dearest write price, and given to Bedrock as the nearest lifetime
 * Converse knows. A `ttl` that is no lifetime at all is still a clear 400. Before, the top-level `24h` was a
 * 400, such writes were priced as five-minute ones, and Bedrock lost the marker.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, startFakeBedrock, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml, errorMessage, eventPayload, postMessage, streamMessage } from '#test/integration/routing/routing-support.ts';
import { generationOf } from '#test/integration/observability/observability-support.ts';

// USD per million tokens; the dearest write price is the one-hour one.
const PRICING = '{ input: 3, output: 15, cache_read: 0.3, cache_write: 3.75, cache_write_1h: 6 }';
// 100 input and 10 output tokens, 4,000 written under a lifetime the gateway knows no price for.
const COST = (100 * 3 + 10 * 15 + 4000 * 6) / 1_000_000;
const USAGE = {
  input_tokens: 100,
  cache_creation_input_tokens: 4000,
  cache_read_input_tokens: 0,
  cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0, ephemeral_24h_input_tokens: 4000 },
  output_tokens: 10,
  service_tier: 'standard',
};
const MESSAGE = { id: 'msg_01LongCacheLifetime0001', type: 'message', role: 'assistant', model: 'claude-cache-test', content: [{ type: 'text', text: 'Cached for a day.' }], stop_reason: 'end_turn', stop_sequence: null, usage: USAGE };
const STREAM = [
  { type: 'message_start', message: { ...MESSAGE, content: [], stop_reason: null, usage: { ...USAGE, output_tokens: 1 } } },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Cached for a day.' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 10 } },
  { type: 'message_stop' },
];
const SYSTEM_TEXT = 'You review pull requests for the payments team.';

let alpha: FakeUpstream;
let bedrock: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  [alpha, bedrock] = await Promise.all([startFakeAnthropic(), startFakeBedrock()]);
  const bedrockYaml = `  bedrock: { base_url: "${bedrock.url}", aws: { region: us-east-1, access_key_id: "AKIALIFETIMETEST0001", secret_access_key: "lifetime/secret/access/key/0000000000001" } }`;
  const model = (slug: string, provider: string, upstream: string) =>
    [`  ${slug}:`, `    name: ${slug}`, '    context_length: 200000', '    capabilities: { tools: true, caching: true }', '    endpoints:', `      - { provider: ${provider}, model: ${upstream}, pricing: ${PRICING} }`].join('\n');
  gateway = await startTestGateway({
    catalogYaml: catalogYaml([anthropicProviderYaml('alpha', alpha), bedrockYaml], [model('test/anthropic', 'alpha', 'claude-cache-test'), model('test/bedrock', 'bedrock', 'anthropic.claude-cache-v1:0')]),
  });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([alpha?.close(), bedrock?.close()]);
});
beforeEach(() => {
  alpha.clear();
  bedrock.clear();
});

async function postRaw(text: string): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const response = await fetch(`${gateway.baseUrl}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json' },
    body: text,
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

describe('a cache lifetime Anthropic adds, on an Anthropic-format upstream', () => {
  it('on a block: reaches the upstream byte for byte, and its writes are priced at the dearest write price', async () => {
    alpha.enqueue(reply.json(MESSAGE));
    const body = { model: 'test/anthropic', max_tokens: 64, system: [{ type: 'text', text: SYSTEM_TEXT, cache_control: { type: 'ephemeral', ttl: '24h' } }], messages: [{ role: 'user', content: 'Review this diff.' }] };
    const call = await postRaw(JSON.stringify(body));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(alpha.lastRequest().rawBody).toBe(JSON.stringify({ ...body, model: 'claude-cache-test' }));
    const usage = call.body.usage as { cost: number; cache_creation: unknown };
    expect(usage.cache_creation).toEqual(USAGE.cache_creation);
    expect(usage.cost).toBeCloseTo(COST, 12);
    const record = await generationOf(gateway, call.headers.get('x-generation-id') ?? '');
    expect(record.cost).toBeCloseTo(COST, 12);
  });

  it('at the top level: placed on the last cacheable block with its ttl untouched, and priced so', async () => {
    alpha.enqueue(reply.json(MESSAGE));
    const call = await postMessage(gateway, { model: 'test/anthropic', max_tokens: 64, cache_control: { type: 'ephemeral', ttl: '24h' }, system: SYSTEM_TEXT, messages: [{ role: 'user', content: 'Review this diff.' }] });

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const sent = alpha.lastRequest().body as Record<string, unknown>;
    expect(sent).not.toHaveProperty('cache_control');
    expect(sent.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Review this diff.', cache_control: { type: 'ephemeral', ttl: '24h' } }] }]);
    expect((call.body.usage as { cost: number }).cost).toBeCloseTo(COST, 12);
  });

  it('streamed: the cost in message_delta is the same', async () => {
    alpha.enqueue(reply.events(STREAM));
    const call = await streamMessage(gateway, { model: 'test/anthropic', max_tokens: 64, cache_control: { type: 'ephemeral', ttl: '24h' }, messages: [{ role: 'user', content: 'Review this diff.' }] });

    expect(call.status).toBe(200);
    expect((alpha.lastRequest().body as { messages: unknown }).messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Review this diff.', cache_control: { type: 'ephemeral', ttl: '24h' } }] }]);
    const usage = eventPayload(call, 'message_delta').usage as { cost: number };
    expect(usage.cost).toBeCloseTo(COST, 12);
  });
});

describe('a ttl that is no lifetime', () => {
  it.each([
    ['a number at the top level', { cache_control: { type: 'ephemeral', ttl: 24 } }, 'cache_control.ttl must be string'],
    ['a word at the top level', { cache_control: { type: 'ephemeral', ttl: 'forever' } }, 'cache_control.ttl must match pattern "^[1-9][0-9]{0,5}[smhd]$"'],
    ['a number on a block', { system: [{ type: 'text', text: SYSTEM_TEXT, cache_control: { type: 'ephemeral', ttl: 24 } }] }, 'system[0].cache_control.ttl must be string'],
  ])('(%s) is a 400 naming it, and no upstream is called', async (_name, fields, reason) => {
    const call = await postMessage(gateway, { model: 'test/anthropic', max_tokens: 64, messages: [{ role: 'user', content: 'Review this diff.' }], ...fields });

    expect(call.status, JSON.stringify(call.body)).toBe(400);
    expect(call.body.error).toMatchObject({ type: 'invalid_request_error', code: 400 });
    expect(errorMessage(call)).toBe(`Invalid request parameters: ${reason}`);
    expect(alpha.requests).toHaveLength(0);
  });
});

describe('a cache lifetime Anthropic adds, on Bedrock', () => {
  const answer = () => reply.json({ output: { message: { role: 'assistant', content: [{ text: 'Cached.' }] } }, stopReason: 'end_turn', usage: { inputTokens: 100, outputTokens: 10, totalTokens: 110 }, metrics: { latencyMs: 80 } });

  it.each([
    ['24h', { type: 'default', ttl: '1h' }],
    ['2h', { type: 'default', ttl: '1h' }],
    ['10m', { type: 'default' }],
  ])('ttl %s becomes the nearest cache point Converse knows: %j', async (ttl, cachePoint) => {
    bedrock.enqueue(answer());
    const call = await postMessage(gateway, { model: 'test/bedrock', max_tokens: 64, system: [{ type: 'text', text: SYSTEM_TEXT, cache_control: { type: 'ephemeral', ttl } }], messages: [{ role: 'user', content: 'Review this diff.' }] });

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect((bedrock.lastRequest().body as { system: unknown }).system).toEqual([{ text: SYSTEM_TEXT }, { cachePoint }]);
  });
});
