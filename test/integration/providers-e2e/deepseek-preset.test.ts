/**
 * End to end through the real gateway with the official Anthropic SDK, against an OpenAI-compatible preset
 * (DeepSeek, on the generic openai-compatible adapter) replaying DeepSeek's real recordings: text,
 * `reasoning_content` as thinking (message and stream), a tool-use round trip whose result must come back as
 * a `tool` role message, DeepSeek's cache-hit tokens priced as cache reads, BYOK, and broken answers.
 */
import { describe, expect, it } from 'vitest';
import { readChunks, readFixture, reply, startFakeOpenAiChat } from '#test/helpers/fake-upstreams/index.ts';
import { expectCost, expectWellFormed, finalStreamUsage, gatewayUsage, providerOf, streamThrough, WEATHER_TOOL } from '#test/integration/providers-e2e/e2e-support.ts';
import { useE2eTarget } from '#test/integration/providers-e2e/e2e-target.ts';
import { describeBrokenAnswers, describeByokCredential } from '#test/integration/providers-e2e/e2e-scenarios.ts';

const SHARED_KEY = 'sk-deepseek-e2e-shared-0001';
const BYOK_KEY = 'sk-deepseek-e2e-byok-3n7b';
const MODEL = 'e2e/deepseek';
// Prices per million tokens: input 0.28, output 0.42, cache read 0.028.
const PRICING = '{ input: 0.28, output: 0.42, cache_read: 0.028 }';

const e2e = useE2eTarget({
  startUpstream: startFakeOpenAiChat,
  providerYaml: (fake) => `  deepseek: { base_url: "${fake.baseURL}", api_key: "${SHARED_KEY}" }`,
  model: { slug: MODEL, provider: 'deepseek', upstreamModel: 'deepseek-reasoner', pricing: PRICING },
});

const strawberry = { model: MODEL, max_tokens: 1024, messages: [{ role: 'user' as const, content: "How many 'r's are in the word 'strawberry'?" }] };
const weather = { role: 'user' as const, content: 'What is the weather in San Francisco?' };
const vendor = { vendor: 'deepseek-chat' as const };

interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: unknown[];
  tool_call_id?: string;
}

describe('DeepSeek preset (OpenAI-compatible), shared key', () => {
  it('returns reasoning_content as thinking, then the text, with usage and cost', async () => {
    e2e.upstream.enqueue(reply.fixture('deepseek-reasoning', vendor));
    const message = await e2e.client.messages.create(strawberry);
    const recorded = readFixture('deepseek-chat', 'deepseek-reasoning') as { choices: Array<{ message: { content: string; reasoning_content: string } }> };

    expect(message.content.map((block) => block.type)).toEqual(['thinking', 'text']);
    expect(message.content[0]).toMatchObject({ type: 'thinking', thinking: recorded.choices[0]?.message.reasoning_content });
    expect(message.content[1]).toMatchObject({ type: 'text', text: recorded.choices[0]?.message.content });
    expect(message.model).toBe(MODEL);
    expect(providerOf(message)).toBe('DeepSeek');
    const usage = gatewayUsage(message);
    expect(usage).toMatchObject({ input_tokens: 18, output_tokens: 345, is_byok: false });
    // 18 x $0.28/M + 345 x $0.42/M = (5.04 + 144.9) / 1e6 = $0.00014994
    expectCost(usage.cost, 0.00014994);

    const sent = e2e.upstream.lastRequest();
    expect(sent?.path).toBe('/v1/chat/completions');
    expect(sent?.headers.authorization).toBe(`Bearer ${SHARED_KEY}`);
    expect(sent?.body).toMatchObject({ model: 'deepseek-reasoner' });
  });

  it('answers a JSON-only reply after a tool result with its reasoning, cache hits priced as cache reads', async () => {
    e2e.upstream.enqueue(reply.fixture('deepseek-json', vendor));
    const message = await e2e.client.messages.create(strawberry);
    const recorded = readFixture('deepseek-chat', 'deepseek-json') as { choices: Array<{ message: { content: string; reasoning_content: string } }> };

    expect(message.content).toEqual([
      { type: 'thinking', thinking: recorded.choices[0]?.message.reasoning_content, signature: expect.any(String) },
      { type: 'text', text: recorded.choices[0]?.message.content },
    ]);
    expect(JSON.parse(message.content[1]?.type === 'text' ? message.content[1].text : '')).toEqual({ location: 'San Francisco', condition: 'cloudy', temperature: 7 });
    const usage = gatewayUsage(message);
    // prompt_tokens 495 of which prompt_cache_hit_tokens 320: 175 uncached input and 320 cache reads.
    expect(usage).toMatchObject({ input_tokens: 175, cache_read_input_tokens: 320, output_tokens: 144 });
    // 175 x $0.28/M + 320 x $0.028/M + 144 x $0.42/M = (49 + 8.96 + 60.48) / 1e6 = $0.00011844
    expectCost(usage.cost, 0.00011844);
  });

  it('streams a long reasoning_content run as a thinking block before the text', async () => {
    e2e.upstream.enqueue(reply.fixture('deepseek-reasoning', vendor));
    const { events, message } = await streamThrough(e2e.client, strawberry);
    const chunks = readChunks('deepseek-chat', 'deepseek-reasoning') as Array<{ choices: Array<{ delta: { content?: string | null; reasoning_content?: string | null } }> }>;
    const thinking = chunks.map((chunk) => chunk.choices[0]?.delta.reasoning_content ?? '').join('');
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');

    const outline = expectWellFormed(events);
    expect(outline.filter((entry) => entry.startsWith('start'))).toEqual(['start 0 thinking', 'start 1 text']);
    expect(message.content[0]).toMatchObject({ type: 'thinking', thinking });
    expect(message.content[1]).toMatchObject({ type: 'text', text });
    expect(message.model).toBe(MODEL);
    const usage = finalStreamUsage(events);
    expect(usage).toMatchObject({ input_tokens: 18, output_tokens: 219, is_byok: false });
    // 18 x $0.28/M + 219 x $0.42/M = (5.04 + 91.98) / 1e6 = $0.00009702
    expectCost(usage.cost, 0.00009702);
  });

  it('completes a tool-use round trip: the tool_result reaches the upstream as a tool role message', async () => {
    e2e.upstream.enqueue(reply.fixture('deepseek-tool-call', vendor), reply.fixture('deepseek-text', vendor));
    const first = await e2e.client.messages.create({ ...strawberry, tools: [WEATHER_TOOL], messages: [weather] });
    expect(first.stop_reason).toBe('tool_use');
    expect(first.content.find((block) => block.type === 'tool_use')).toEqual({ type: 'tool_use', id: 'call_00_9V0vrf86Pc9aelHCJMZqnJBo', name: 'weather', input: { location: 'San Francisco' } });
    const usage = gatewayUsage(first);
    // prompt_tokens 339 include prompt_cache_hit_tokens 320 -> 19 uncached.
    expect(usage).toMatchObject({ input_tokens: 19, cache_read_input_tokens: 320, output_tokens: 92 });
    // 19 x $0.28 + 320 x $0.028 + 92 x $0.42, per million = (5.32 + 8.96 + 38.64) / 1e6 = $0.00005292
    expectCost(usage.cost, 0.00005292);

    await e2e.client.messages.create({
      ...strawberry,
      tools: [WEATHER_TOOL],
      messages: [weather, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_00_9V0vrf86Pc9aelHCJMZqnJBo', content: 'Foggy, 14°C' }] }],
    });
    const messages = (e2e.upstream.lastRequest()?.body as { messages: ChatMessage[] }).messages;
    expect(messages.find((message) => message.role === 'assistant')?.tool_calls).toEqual([
      { id: 'call_00_9V0vrf86Pc9aelHCJMZqnJBo', type: 'function', function: { name: 'weather', arguments: JSON.stringify({ location: 'San Francisco' }) } },
    ]);
    expect(messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_00_9V0vrf86Pc9aelHCJMZqnJBo', content: 'Foggy, 14°C' });
  });
});

describeBrokenAnswers('DeepSeek preset', {
  suite: e2e,
  request: strawberry,
  recording: (delivery) => reply.fixture('deepseek-reasoning', { ...vendor, ...delivery }),
  midStreamAfterEvents: 3,
});

describeByokCredential('DeepSeek preset', {
  suite: e2e,
  provider: 'deepseek',
  key: BYOK_KEY,
  sentAs: 'as the bearer token',
  keyOf: (sent) => sent.headers.authorization,
  expectedKey: `Bearer ${BYOK_KEY}`,
  request: strawberry,
  replies: { message: reply.fixture('deepseek-text', vendor), stream: reply.fixture('deepseek-reasoning', vendor) },
  // deepseek-text.json: 13 input, 300 output: (13 x 0.28 + 300 x 0.42) / 1e6 = (3.64 + 126) / 1e6 = $0.00012964
  cost: 0.00012964,
  sharedSecret: SHARED_KEY,
});
