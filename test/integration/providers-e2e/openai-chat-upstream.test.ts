/**
 * End to end through the real gateway with the official Anthropic SDK, against an OpenAI Chat Completions
 * upstream (the `openai` provider configured with `family: openai-chat`) replaying real recordings: text
 * message and stream, a tool-use round trip whose tool_result must arrive as a `tool` role message, usage
 * with cached prompt tokens in Anthropic's convention, cost to the cent, BYOK, and broken answers.
 *
 * OpenAI's own Chat Completions recordings hold text only; the tool-call scenarios replay DeepSeek's
 * recorded Chat Completions answers (same wire format, `prompt_tokens_details.cached_tokens` included).
 */
import { describe, expect, it } from 'vitest';
import { readChunks, readFixture, reply, startFakeOpenAiChat } from '#test/helpers/fake-upstreams/index.ts';
import { expectCost, expectWellFormed, finalStreamUsage, gatewayUsage, providerOf, streamThrough, WEATHER_TOOL } from '#test/integration/providers-e2e/e2e-support.ts';
import { useE2eTarget } from '#test/integration/providers-e2e/e2e-target.ts';
import { describeBrokenAnswers, describeByokCredential } from '#test/integration/providers-e2e/e2e-scenarios.ts';

const SHARED_KEY = 'sk-openai-e2e-shared-0001';
const BYOK_KEY = 'sk-proj-e2e-byok-4k8z1m';
const MODEL = 'e2e/gpt-chat';
// Prices per million tokens: input 0.10, output 0.40, cache read 0.025.
const PRICING = '{ input: 0.1, output: 0.4, cache_read: 0.025 }';

const e2e = useE2eTarget({
  startUpstream: startFakeOpenAiChat,
  providerYaml: (fake) => `  openai: { base_url: "${fake.baseURL}", api_key: "${SHARED_KEY}", family: openai-chat }`,
  // PDF input too: the count of a PDF below is of a request the model could be sent (a count refuses one it could not).
  model: { slug: MODEL, provider: 'openai', upstreamModel: 'gpt-4.1-nano', pricing: PRICING, capabilities: '{ tools: true, thinking: true, vision: true, pdf: true }' },
});

const holiday = { model: MODEL, max_tokens: 1024, messages: [{ role: 'user' as const, content: 'Invent a new holiday and describe its traditions.' }] };
const weather = { role: 'user' as const, content: 'What is the weather in San Francisco?' };
const deepseek = { vendor: 'deepseek-chat' as const };

interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

describe('OpenAI Chat Completions upstream, shared key', () => {
  it('returns the recorded text with the gateway slug, provider, usage and cost', async () => {
    e2e.upstream.enqueue(reply.fixture('openai-text'));
    const message = await e2e.client.messages.create(holiday);
    const recorded = readFixture('openai-chat', 'openai-text') as { choices: Array<{ message: { content: string } }> };

    expect(message.content).toEqual([{ type: 'text', text: recorded.choices[0]?.message.content }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.model).toBe(MODEL);
    expect(providerOf(message)).toBe('OpenAI');
    const usage = gatewayUsage(message);
    expect(usage).toMatchObject({ input_tokens: 16, output_tokens: 363, is_byok: false });
    // 16 input x $0.10/M + 363 output x $0.40/M = (1.6 + 145.2) / 1e6 = $0.0001468
    expectCost(usage.cost, 0.0001468);

    const sent = e2e.upstream.lastRequest();
    expect(sent?.path).toBe('/v1/chat/completions');
    expect(sent?.headers.authorization).toBe(`Bearer ${SHARED_KEY}`);
    expect(sent?.body).toMatchObject({ model: 'gpt-4.1-nano', messages: [{ role: 'user', content: holiday.messages[0]?.content }] });
  });

  it('streams the recorded text as one well-formed text block', async () => {
    e2e.upstream.enqueue(reply.fixture('openai-text'));
    const { events, message } = await streamThrough(e2e.client, holiday);
    const recordedText = (readChunks('openai-chat', 'openai-text') as Array<{ choices: Array<{ delta: { content?: string } }> }>)
      .map((chunk) => chunk.choices[0]?.delta.content ?? '')
      .join('');

    expect(expectWellFormed(events)).toEqual(['start 0 text', 'delta 0 text_delta', 'stop 0', 'message_delta']);
    expect(message.content).toEqual([{ type: 'text', text: recordedText, citations: null }].map(({ citations: _citations, ...block }) => expect.objectContaining(block)));
    expect(message.model).toBe(MODEL);
    expect(providerOf(message)).toBe('OpenAI');
    expect(message.stop_reason).toBe('end_turn');
    const usage = finalStreamUsage(events);
    expect(usage).toMatchObject({ input_tokens: 16, output_tokens: 300, is_byok: false });
    // 16 x $0.10/M + 300 x $0.40/M = (1.6 + 120) / 1e6 = $0.0001216
    expectCost(usage.cost, 0.0001216);
    expect(e2e.upstream.lastRequest()?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('completes a tool-use round trip: the tool_result reaches the upstream as a tool role message', async () => {
    e2e.upstream.enqueue(reply.fixture('deepseek-tool-call', deepseek), reply.fixture('openai-text'));
    const first = await e2e.client.messages.create({ ...holiday, tools: [WEATHER_TOOL], messages: [weather] });
    expect(first.stop_reason).toBe('tool_use');
    const toolUse = first.content.find((block) => block.type === 'tool_use');
    expect(toolUse).toEqual({ type: 'tool_use', id: 'call_00_9V0vrf86Pc9aelHCJMZqnJBo', name: 'weather', input: { location: 'San Francisco' } });
    // OpenAI counts cached tokens inside prompt_tokens: 339 prompt of which 320 cached -> 19 uncached input.
    const usage = gatewayUsage(first);
    expect(usage).toMatchObject({ input_tokens: 19, cache_read_input_tokens: 320, output_tokens: 92 });
    // 19 x $0.10 + 320 x $0.025 + 92 x $0.40, per million = (1.9 + 8 + 36.8) / 1e6 = $0.0000467
    expectCost(usage.cost, 0.0000467);
    expect(e2e.upstream.lastRequest()?.body).toMatchObject({ tools: [{ type: 'function', function: { name: 'weather', parameters: WEATHER_TOOL.input_schema } }] });

    const second = await e2e.client.messages.create({
      ...holiday,
      tools: [WEATHER_TOOL],
      messages: [weather, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_00_9V0vrf86Pc9aelHCJMZqnJBo', content: 'Sunny, 18°C' }] }],
    });
    expect(second.stop_reason).toBe('end_turn');
    const sent = e2e.upstream.lastRequest()?.body as { messages: ChatMessage[] };
    const assistant = sent.messages.find((message) => message.role === 'assistant');
    expect(assistant?.tool_calls).toEqual([{ id: 'call_00_9V0vrf86Pc9aelHCJMZqnJBo', type: 'function', function: { name: 'weather', arguments: JSON.stringify({ location: 'San Francisco' }) } }]);
    expect(sent.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_00_9V0vrf86Pc9aelHCJMZqnJBo', content: 'Sunny, 18°C' });
  });

  it('streams a tool call whose arguments arrive split across chunks', async () => {
    e2e.upstream.enqueue(reply.fixture('deepseek-tool-call', deepseek));
    const { events, message } = await streamThrough(e2e.client, { ...holiday, tools: [WEATHER_TOOL], messages: [weather] });
    const outline = expectWellFormed(events);
    const toolIndex = message.content.findIndex((block) => block.type === 'tool_use');
    expect(outline).toContain(`delta ${toolIndex} input_json_delta`);
    // The streamed recording is a separate call with its own tool-call id.
    expect(message.content[toolIndex]).toEqual({ type: 'tool_use', id: 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF', name: 'weather', input: { location: 'San Francisco' } });
    expect(message.stop_reason).toBe('tool_use');
    const usage = finalStreamUsage(events);
    expect(usage).toMatchObject({ input_tokens: 19, cache_read_input_tokens: 320, output_tokens: 83 });
    // 19 x $0.10 + 320 x $0.025 + 83 x $0.40, per million = (1.9 + 8 + 33.2) / 1e6 = $0.0000431
    expectCost(usage.cost, 0.0000431);
  });

  it("answers count_tokens with the gateway's estimate, text by characters and a PDF by pages, calling no one", async () => {
    const requestsBefore = e2e.upstream.requests.length;
    const pdf = Buffer.alloc(150 * 1024).toString('base64');
    const counted = await e2e.client.messages.countTokens({
      model: MODEL,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'x'.repeat(400) }, { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf } }] }],
    });
    // 400 characters / 4 = 100, and 150 KB of PDF = two pages of 3,000.
    expect(counted.input_tokens).toBe(100 + 2 * 3_000);
    expect(e2e.upstream.requests.length).toBe(requestsBefore);
  });
});

describeBrokenAnswers('OpenAI Chat Completions upstream', {
  suite: e2e,
  request: holiday,
  recording: (delivery) => reply.fixture('openai-text', delivery),
});

describeByokCredential('OpenAI Chat Completions upstream', {
  suite: e2e,
  provider: 'openai',
  key: BYOK_KEY,
  sentAs: 'as the bearer token',
  keyOf: (sent) => sent.headers.authorization,
  expectedKey: `Bearer ${BYOK_KEY}`,
  request: holiday,
  replies: { message: reply.fixture('openai-text'), stream: reply.fixture('openai-text') },
  cost: 0.0001468,
  sharedSecret: SHARED_KEY,
});
