/**
 * Anthropic's web search tool on a mixed plan (an Anthropic-format endpoint, a translated fallback) with a
 * search backend configured, over HTTP: the decision is per attempt. When the Anthropic endpoint serves, its
 * answer reaches the client as a plan of Anthropic endpoints only gets it (the recorded `server_tool_use` and
 * `web_search_tool_result` blocks as Anthropic sent them, a stream's bytes forwarded, the searches priced at
 * the endpoint's `web_search_request`, a plain record without tool steps); when it fails, the translated
 * fallback of the same plan runs the gateway's search on SearXNG, and when its stream ends in a refusal, the
 * stream moves on to that fallback as the loop's stream does (a `fallback` block, the refused call charged).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicStep, openAiChatStep, readFixture, readFixtureText, reply, startFakeAnthropic, startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { searxngAnswer, searxngResult, startFakeSearxng } from '#test/helpers/fake-tool-servers/fake-searxng.ts';
import type { ScriptedServer } from '#test/helpers/fake-tool-servers/scripted-json-server.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { callApi } from '#test/helpers/management-api.ts';
import { issueLimitedKey, listedKey } from '#test/integration/limits/limits-support.ts';
import { anthropicProviderYaml, catalogYaml, WITH_METADATA } from '#test/integration/routing/routing-support.ts';
import { attemptTrail, earlyRefusalStep } from '#test/integration/routing/refusal-support.ts';

const FIXTURE = 'anthropic-web-search-tool.1';
const WEB_SEARCH = { type: 'web_search_20250305', name: 'web_search', max_uses: 3 };
// $3 in, $15 out per million tokens and Anthropic's $0.01 a search.
const CLAUDE_PRICING = '{ input: 3, output: 15, web_search_request: 0.01 }';

let alpha: FakeUpstream;
let openai: FakeUpstream;
let searxng: ScriptedServer;
let gateway: TestGateway;

beforeAll(async () => {
  [alpha, openai, searxng] = await Promise.all([startFakeAnthropic(), startFakeOpenAiChat(), startFakeSearxng()]);
  const providers = [anthropicProviderYaml('alpha', alpha), `  openai: { base_url: "${openai.baseURL}", api_key: "sk-openai-pass-0001", family: openai-chat }`];
  const capabilities = '    capabilities: { tools: true, vision: true, pdf: true, thinking: true, caching: true, structured_output: true }';
  const models = [
    ['  test/claude:', '    name: test/claude', '    context_length: 200000', capabilities, '    endpoints:', `      - { provider: alpha, model: up-claude, pricing: ${CLAUDE_PRICING} }`].join('\n'),
    // A second Anthropic-format model, at $5/$25, for a refusal moving on to a model that takes the request as sent.
    ['  test/claude-b:', '    name: test/claude-b', '    context_length: 200000', capabilities, '    endpoints:', '      - { provider: alpha, model: up-claude-b, pricing: { input: 5, output: 25 } }'].join('\n'),
    ['  test/gpt:', '    name: test/gpt', '    context_length: 200000', capabilities, '    endpoints:', '      - { provider: openai, model: gpt-pass, pricing: { input: 1, output: 4 } }'].join('\n'),
  ];
  const tools = `server_tools:\n  web_search: { backend: searxng, base_url: "${searxng.origin}" }\n`;
  gateway = await startTestGateway({ catalogYaml: `${catalogYaml(providers, models)}${tools}` });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([alpha?.close(), openai?.close(), searxng?.close()]);
});
beforeEach(() => {
  alpha.clear();
  openai.clear();
  searxng.requests.length = 0;
});

function body(extra: Record<string, unknown>): Record<string, unknown> {
  return { model: 'test/claude', max_tokens: 1024, messages: [{ role: 'user', content: 'What is in the tech news today?' }], tools: [WEB_SEARCH], ...extra };
}
const MIXED = { fallbacks: [{ model: 'test/gpt' }] };

/** Posts a request; the answer's status and text. */
async function post(sent: Record<string, unknown>, key = gateway.api_key, extraHeaders: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const response = await fetch(`${gateway.baseUrl}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...extraHeaders },
    body: JSON.stringify(sent),
  });
  return { status: response.status, text: await response.text() };
}

/** The one generation record of the request that carried `user`, once written. */
async function recordOf(user: string): Promise<Record<string, any>> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    await gateway.server.flushRecords();
    const response = await callApi(gateway.baseUrl, 'GET', `/generations?user=${user}`, { key: gateway.management_key });
    const [record] = response.body.data as Record<string, any>[];
    if (record) return record;
    if (Date.now() > deadline) throw new Error(`no generation record for ${user}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('web_search_20250305 on a mixed plan, the Anthropic-format endpoint serving', () => {
  it('JSON: the answer is the one a plan of Anthropic endpoints only gets, Anthropic blocks and search fee included', async () => {
    const recorded = readFixture('anthropic', `${FIXTURE}.json`) as { content: unknown[]; usage: { input_tokens: number; output_tokens: number } };
    alpha.enqueue(reply.fixture(FIXTURE), reply.fixture(FIXTURE));
    const plain = await post(body({ user: 'pass-json-plain' }));
    const mixed = await post(body({ ...MIXED, user: 'pass-json-mixed' }));
    expect(plain.status).toBe(200);
    expect(mixed.status).toBe(200);
    expect(mixed.text).toBe(plain.text);
    const message = JSON.parse(mixed.text) as { content: unknown[]; usage: Record<string, unknown> };
    expect(message.content).toEqual(recorded.content);
    expect(message.usage.server_tool_use).toEqual({ web_search_requests: 2, web_fetch_requests: 0 });
    const cost = (recorded.usage.input_tokens * 3 + recorded.usage.output_tokens * 15) / 1e6 + 2 * 0.01;
    expect(message.usage.cost).toBeCloseTo(cost, 12);
    // The endpoint got the tool as sent, in the body a plain request gets; nothing was searched by the
    // gateway, nothing sent to OpenAI.
    expect((alpha.requests[1]?.body as { tools: unknown }).tools).toEqual([WEB_SEARCH]);
    expect(alpha.requests[1]?.body).toEqual(alpha.requests[0]?.body);
    expect(searxng.requests).toHaveLength(0);
    expect(openai.requests).toHaveLength(0);
    // Recorded as a plain answer: its cost, no tool steps.
    const record = await recordOf('pass-json-mixed');
    expect(record.cost).toBeCloseTo(cost, 12);
    expect(record.tool_steps).toBeNull();
  });

  it('stream: the bytes are the ones a plan of Anthropic endpoints only gets, the recorded blocks forwarded as sent', async () => {
    // The mixed plan's upstream stream cut at arbitrary byte boundaries: what the client reads is the same.
    alpha.enqueue(reply.fixture(FIXTURE), reply.fixture(FIXTURE, { split: { seed: 11, maxChunkBytes: 97 } }));
    const plain = await post(body({ stream: true, user: 'pass-stream-plain' }));
    const mixed = await post(body({ ...MIXED, stream: true, user: 'pass-stream-mixed' }));
    expect(mixed.status).toBe(200);
    expect(mixed.text).toBe(plain.text);
    expect(alpha.requests[1]?.body).toEqual(alpha.requests[0]?.body);
    // Every content block event of the recording, byte for byte as Anthropic wrote its data.
    const lines = readFixtureText('anthropic', `${FIXTURE}.chunks.txt`).split('\n').filter((line) => line.includes('"content_block_'));
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) expect(mixed.text).toContain(`data: ${line}\n`);
    const delta = mixed.text.split('\n').find((line) => line.includes('"message_delta"')) ?? '';
    const usage = (JSON.parse(delta.slice('data: '.length)) as { usage: { cost: number; server_tool_use: unknown } }).usage;
    expect(usage.server_tool_use).toEqual({ web_search_requests: 1, web_fetch_requests: 0 });
    expect(usage.cost).toBeCloseTo((15665 * 3 + 795 * 15) / 1e6 + 0.01, 12);
    expect(searxng.requests).toHaveLength(0);
    const record = await recordOf('pass-stream-mixed');
    expect(record.cost).toBeCloseTo(usage.cost, 12);
    expect(record.tool_steps).toBeNull();
  });
});

describe('web_search_20250305 on a mixed plan, the Anthropic model refusing before any output (cyber), JSON', () => {
  it('the next Anthropic-format model passes through: the refused call listed, its cost excluded (its upstream does not bill it)', async () => {
    alpha.enqueue(earlyRefusalStep('cyber', { input: 40, output: 0 }), anthropicStep({ text: 'Chips.', usage: { input: 300, output: 6 } }));
    const answer = await post(body({ fallbacks: [{ model: 'test/claude-b' }, { model: 'test/gpt' }], user: 'refused-unbilled-json' }));
    expect(answer.status).toBe(200);
    const message = JSON.parse(answer.text) as { content: { type: string }[]; usage: Record<string, any> };
    expect(message.content.map((block) => block.type)).toEqual(['fallback', 'text']);
    // Only the serving call, at test/claude-b's prices: the refusal before any output in cyber is not billed.
    const served = (300 * 5 + 6 * 25) / 1e6;
    expect(message.usage.cost).toBeCloseTo(served, 12);
    expect(message.usage).toMatchObject({ input_tokens: 300, output_tokens: 6 });
    expect(message.usage.iterations.map((entry: { type: string; model: string; input_tokens: number }) => `${entry.type}:${entry.model}:${entry.input_tokens}`)).toEqual(['message:test/claude:40', 'fallback_message:test/claude-b:300']);
    expect(alpha.requests.map((request) => (request.body as { model: string }).model)).toEqual(['up-claude', 'up-claude-b']);
    expect(openai.requests).toHaveLength(0);
    // Recorded as a plain answer: every call's tokens, the serving call's cost.
    const record = await recordOf('refused-unbilled-json');
    expect(record.cost).toBeCloseTo(served, 12);
    expect(record.usage).toMatchObject({ input_tokens: 340, output_tokens: 6 });
    expect(record.tool_steps).toBeNull();
    expect(attemptTrail(record)).toEqual(['test/claude:refusal', 'test/claude-b:success']);
  });
});

describe.each([false, true])('web_search_20250305 on a mixed plan, a key with limits (stream: %s)', (stream) => {
  it('the passed-through answer is charged to the key once, search fee included', async () => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    alpha.enqueue(reply.fixture(FIXTURE));
    const answer = await post(body({ ...MIXED, stream, user: `limited-${String(stream)}` }), issued.key);
    expect(answer.status).toBe(200);
    const record = await recordOf(`limited-${String(stream)}`);
    // JSON: 27,118 in and 600 out, two searches; the stream's recording: 15,665 in and 795 out, one search.
    const cost = stream ? (15665 * 3 + 795 * 15) / 1e6 + 0.01 : (27118 * 3 + 600 * 15) / 1e6 + 2 * 0.01;
    expect(record.cost).toBeCloseTo(cost, 12);
    expect((await listedKey(gateway, issued.hash)).usage.cost).toBeCloseTo(cost, 12);
  });
});

describe.each([false, true])('web_search_20250305 on a mixed plan, the Anthropic endpoint failing (stream: %s)', (stream) => {
  it('the OpenAI fallback of the same plan runs the gateway search on SearXNG', async () => {
    alpha.enqueue(reply.error(500));
    searxng.enqueue(searxngAnswer('tech news', [searxngResult({ url: 'https://news.example.com/a', title: 'Tech news', content: 'Chips.' })]));
    openai.enqueue(
      openAiChatStep({ calls: [{ name: 'web_search', input: { query: 'tech news' } }], usage: { input: 50, output: 10 } }),
      openAiChatStep({ text: 'Chips.', usage: { input: 300, output: 6 } }),
    );
    const answer = await post(body({ ...MIXED, stream, user: `fallback-${String(stream)}` }));
    expect(answer.status).toBe(200);
    expect(searxng.requests).toHaveLength(1);
    expect(answer.text).toContain('"web_search_tool_result"');
    expect(answer.text).toContain('"web_search_requests":1');
    const record = await recordOf(`fallback-${String(stream)}`);
    expect(record.tool_steps).toHaveLength(2);
    expect(record.cost).toBeCloseTo((350 * 1 + 16 * 4) / 1e6, 12);
  });
});

/** The data of each event of an SSE body, parsed. */
function eventsOf(text: string): Record<string, any>[] {
  return text.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice('data: '.length)) as Record<string, any>);
}

describe('web_search_20250305 on a mixed plan, the Anthropic stream refusing', () => {
  it('moves on to the OpenAI fallback, which runs the gateway search: one stream, the hop marked and charged', async () => {
    const stopDetails = { type: 'refusal', category: 'cyber', explanation: 'Not this one.' };
    alpha.enqueue(anthropicStep({ text: 'I', stopReason: 'refusal', stopDetails, usage: { input: 40, output: 1 } }));
    searxng.enqueue(searxngAnswer('tech news', [searxngResult({ url: 'https://news.example.com/a', title: 'Tech news', content: 'Chips.' })]));
    openai.enqueue(
      openAiChatStep({ calls: [{ name: 'web_search', input: { query: 'tech news' } }], usage: { input: 50, output: 10 } }),
      openAiChatStep({ text: 'Chips.', usage: { input: 300, output: 6 } }),
    );
    const answer = await post(body({ ...MIXED, stream: true, user: 'refused-stream' }), gateway.api_key, WITH_METADATA);
    expect(answer.status).toBe(200);
    const events = eventsOf(answer.text);
    expect(events.filter((event) => event.type === 'message_start')).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'message_start', message: { model: 'test/claude' } });
    // One message: the refused text, the hop, then the loop's search and answer, its blocks numbered on.
    const starts = events.filter((event) => event.type === 'content_block_start');
    expect(starts.map((event) => event.content_block.type)).toEqual(['text', 'fallback', 'server_tool_use', 'web_search_tool_result', 'text']);
    expect(starts.map((event) => event.index)).toEqual([0, 1, 2, 3, 4]);
    expect(starts[1]?.content_block).toEqual({ type: 'fallback', from: { model: 'test/claude' }, to: { model: 'test/gpt' }, trigger: { type: 'refusal', category: 'cyber' } });
    const text = events.filter((event) => event.type === 'content_block_delta' && event.index === 4).map((event) => event.delta.text).join('');
    expect(text).toBe('Chips.');
    const deltas = events.filter((event) => event.type === 'message_delta');
    expect(deltas).toHaveLength(1);
    expect(deltas[0]?.delta.stop_reason).toBe('end_turn');
    expect(events.at(-1)?.type).toBe('message_stop');
    // The loop's metadata: the refused attempt in its first step, before the model that served it.
    const attempts = (events.at(-1)?.gateway_metadata?.attempts ?? []) as { step?: number; model: string; status: string }[];
    expect(attempts.map((attempt) => `${attempt.step}:${attempt.model}:${attempt.status}`)).toEqual(['1:test/claude:refusal', '1:test/gpt:success', '2:test/gpt:success']);
    // The refused call at Claude's prices, the two OpenAI steps at theirs; the gateway's one search is free.
    const refused = (40 * 3 + 1 * 15) / 1e6;
    const served = (350 * 1 + 16 * 4) / 1e6;
    const { usage } = deltas[0] as { usage: Record<string, any> };
    expect(usage.cost).toBeCloseTo(refused + served, 12);
    expect(usage.input_tokens).toBe(390);
    expect(usage.output_tokens).toBe(17);
    expect(usage.server_tool_use).toMatchObject({ web_search_requests: 1 });
    expect(usage.iterations.map((entry: { type: string; model: string; input_tokens: number }) => `${entry.type}:${entry.model}:${entry.input_tokens}`)).toEqual([
      'message:test/claude:40',
      'message:test/gpt:50',
      'fallback_message:test/gpt:300',
    ]);
    expect(searxng.requests).toHaveLength(1);
    expect(alpha.requests).toHaveLength(1);
    expect((alpha.requests[0]?.body as { tools: unknown }).tools).toEqual([WEB_SEARCH]);
    expect(openai.requests).toHaveLength(2);
    // Recorded as the loop it became: the refused attempt, the steps, every call's cost.
    const record = await recordOf('refused-stream');
    expect(record.cost).toBeCloseTo(refused + served, 12);
    // The loop's counts already hold the refused call's: the record sums nothing twice.
    expect(record.usage).toMatchObject({ input_tokens: 390, output_tokens: 17 });
    expect(attemptTrail(record)).toEqual(['test/claude:refusal', 'test/gpt:success', 'test/gpt:success']);
    expect(record.tool_steps).toHaveLength(2);
    expect(record.tool_steps[0]).toMatchObject({ model: 'test/gpt', usage: { input_tokens: 90, output_tokens: 11 } });
    expect(record.tool_steps[0].cost).toBeCloseTo(refused + (50 * 1 + 10 * 4) / 1e6, 12);
  });

  it('a key with limits is charged the refused call and the loop once', async () => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    alpha.enqueue(anthropicStep({ text: 'I', stopReason: 'refusal', usage: { input: 40, output: 1 } }));
    openai.enqueue(openAiChatStep({ text: 'Chips.', usage: { input: 300, output: 6 } }));
    const answer = await post(body({ ...MIXED, stream: true, user: 'refused-limited' }), issued.key);
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('"type":"fallback"');
    const cost = (40 * 3 + 1 * 15) / 1e6 + (300 * 1 + 6 * 4) / 1e6;
    const record = await recordOf('refused-limited');
    expect(record.cost).toBeCloseTo(cost, 12);
    expect(record.tool_steps).toHaveLength(1);
    expect((await listedKey(gateway, issued.hash)).usage.cost).toBeCloseTo(cost, 12);
  });

  it('no other model answering: the refusal is the answer, as Anthropic streamed it, charged once', async () => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    alpha.enqueue(anthropicStep({ text: 'I', stopReason: 'refusal', usage: { input: 40, output: 1 } }));
    openai.enqueue(reply.error(500));
    const answer = await post(body({ ...MIXED, stream: true, user: 'refused-alone' }), issued.key);
    expect(answer.status).toBe(200);
    const events = eventsOf(answer.text);
    expect(events.filter((event) => event.type === 'content_block_start').map((event) => event.content_block.type)).toEqual(['text']);
    const delta = events.find((event) => event.type === 'message_delta') as { delta: { stop_reason: string }; usage: { cost: number } };
    expect(delta.delta.stop_reason).toBe('refusal');
    const cost = (40 * 3 + 1 * 15) / 1e6;
    expect(delta.usage.cost).toBeCloseTo(cost, 12);
    expect(openai.requests).toHaveLength(1);
    const record = await recordOf('refused-alone');
    expect(record.cost).toBeCloseTo(cost, 12);
    expect(record.tool_steps).toBeNull();
    expect(attemptTrail(record)).toEqual(['test/claude:refusal', 'test/gpt:server_error']);
    expect((await listedKey(gateway, issued.hash)).usage.cost).toBeCloseTo(cost, 12);
  });
});
