/**
 * End to end through the real gateway with the official Anthropic SDK, against an OpenAI Responses upstream
 * (the `openai` provider's default family) replaying real recordings: reasoning summary and text, a stream
 * with two message items, a streamed function call whose result must come back as `function_call_output`,
 * cached input priced as cache reads, BYOK, and broken answers.
 */
import { describe, expect, it } from 'vitest';
import { readChunks, readFixture, reply, startFakeOpenAiResponses } from '#test/helpers/fake-upstreams/index.ts';
import { expectCost, expectWellFormed, finalStreamUsage, gatewayUsage, providerOf, streamThrough } from '#test/integration/providers-e2e/e2e-support.ts';
import { useE2eTarget } from '#test/integration/providers-e2e/e2e-target.ts';
import { describeBrokenAnswers, describeByokCredential } from '#test/integration/providers-e2e/e2e-scenarios.ts';

const SHARED_KEY = 'sk-openai-e2e-responses-shared-0001';
const BYOK_KEY = 'sk-proj-e2e-responses-byok-9x3c';
const MODEL = 'e2e/gpt-responses';
// Prices per million tokens: input 1.25, output 10, cache read 0.125.
const PRICING = '{ input: 1.25, output: 10, cache_read: 0.125 }';

const e2e = useE2eTarget({
  startUpstream: startFakeOpenAiResponses,
  providerYaml: (fake) => `  openai: { base_url: "${fake.baseURL}", api_key: "${SHARED_KEY}" }`,
  model: { slug: MODEL, provider: 'openai', upstreamModel: 'gpt-5-mini', pricing: PRICING },
});

const news = { model: MODEL, max_tokens: 2048, messages: [{ role: 'user' as const, content: 'What are the latest AI news today?' }] };
const CALCULATOR = {
  name: 'calculator',
  description: 'Basic arithmetic',
  input_schema: { type: 'object' as const, properties: { a: { type: 'number' }, b: { type: 'number' }, op: { type: 'string' } }, required: ['a', 'b', 'op'] },
};
const arithmetic = { role: 'user' as const, content: 'Add 12 and 7, multiply by 3, then by 10.' };

interface ResponsesInputItem {
  type?: string;
  role?: string;
  call_id?: string;
  output?: unknown;
  name?: string;
  arguments?: string;
}

describe('OpenAI Responses upstream, shared key', () => {
  it('returns reasoning as thinking, then the text, with usage and cost', async () => {
    e2e.upstream.enqueue(reply.fixture('openai-reasoning-encrypted-content.1'));
    const message = await e2e.client.messages.create({ ...news, thinking: { type: 'enabled', budget_tokens: 1024 } });
    const recorded = readFixture('openai-responses', 'openai-reasoning-encrypted-content.1') as {
      output: Array<{ type: string; summary?: Array<{ text: string }>; content?: Array<{ text: string }> }>;
    };
    const summary = recorded.output.find((item) => item.type === 'reasoning')?.summary?.[0]?.text;
    const text = recorded.output.find((item) => item.type === 'message')?.content?.[0]?.text;

    expect(message.content.map((block) => block.type)).toEqual(['thinking', 'text']);
    expect(message.content[0]).toMatchObject({ type: 'thinking', thinking: summary });
    // The encrypted reasoning rides in the signature, so it can be replayed on the next turn.
    expect(message.content[0]?.type === 'thinking' && message.content[0].signature.length).toBeGreaterThan(100);
    expect(message.content[1]).toMatchObject({ type: 'text', text });
    expect(message.model).toBe(MODEL);
    expect(providerOf(message)).toBe('OpenAI');
    const usage = gatewayUsage(message);
    expect(usage).toMatchObject({ input_tokens: 865, output_tokens: 163, is_byok: false });
    // 865 x $1.25/M + 163 x $10/M (reasoning included) = (1081.25 + 1630) / 1e6 = $0.00271125
    expectCost(usage.cost, 0.00271125);

    const sent = e2e.upstream.lastRequest();
    expect(sent?.path).toBe('/v1/responses');
    expect(sent?.headers.authorization).toBe(`Bearer ${SHARED_KEY}`);
    expect(sent?.body).toMatchObject({ model: 'gpt-5-mini', store: false });
  });

  it('streams two message items as two text blocks; cached input is priced as cache reads', async () => {
    e2e.upstream.enqueue(reply.fixture('openai-phase.1'));
    const { events, message } = await streamThrough(e2e.client, news);
    // The recording abbreviates: each item streams a few deltas, and the deltas are what a client receives.
    const recordedTexts = new Map<string, string>();
    for (const chunk of readChunks('openai-responses', 'openai-phase.1') as Array<{ type: string; item_id?: string; delta?: string }>) {
      if (chunk.type === 'response.output_text.delta' && chunk.item_id) recordedTexts.set(chunk.item_id, (recordedTexts.get(chunk.item_id) ?? '') + chunk.delta);
    }

    const outline = expectWellFormed(events);
    expect(outline.filter((entry) => entry.startsWith('start'))).toEqual(['start 0 text', 'start 1 text']);
    expect(message.content.map((block) => (block.type === 'text' ? block.text : block.type))).toEqual([...recordedTexts.values()]);
    expect(message.model).toBe(MODEL);
    const usage = finalStreamUsage(events);
    // Responses counts cached tokens inside input_tokens: 7112 of which 3072 cached -> 4040 uncached.
    expect(usage).toMatchObject({ input_tokens: 4040, cache_read_input_tokens: 3072, output_tokens: 463, is_byok: false });
    // 4040 x $1.25 + 3072 x $0.125 + 463 x $10, per million = (5050 + 384 + 4630) / 1e6 = $0.010064
    expectCost(usage.cost, 0.010064);
  });

  it('completes a tool-use round trip: the tool_result reaches the upstream as function_call_output', async () => {
    e2e.upstream.enqueue(reply.fixture('openai-reasoning-encrypted-content.1'), reply.fixture('openai-reasoning-encrypted-content.1'));
    const first = await streamThrough(e2e.client, { ...news, tools: [CALCULATOR], messages: [arithmetic] });
    const outline = expectWellFormed(first.events);
    expect(outline.filter((entry) => entry.startsWith('start'))).toEqual(['start 0 thinking', 'start 1 tool_use']);
    expect(outline).toContain('delta 1 input_json_delta');
    const toolUse = first.message.content[1];
    expect(toolUse).toEqual({ type: 'tool_use', id: 'call_AB6AaRZ1FYZB2RwS6A5vbdqn', name: 'calculator', input: { a: 12, b: 7, op: 'add' } });
    expect(first.message.stop_reason).toBe('tool_use');
    const usage = finalStreamUsage(first.events);
    expect(usage).toMatchObject({ input_tokens: 134, output_tokens: 28 });
    // 134 x $1.25/M + 28 x $10/M = (167.5 + 280) / 1e6 = $0.0004475
    expectCost(usage.cost, 0.0004475);

    const second = await e2e.client.messages.create({
      ...news,
      tools: [CALCULATOR],
      messages: [arithmetic, { role: 'assistant', content: first.message.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_AB6AaRZ1FYZB2RwS6A5vbdqn', content: '19' }] }],
    });
    expect(second.content.at(-1)).toMatchObject({ type: 'text' });
    const input = (e2e.upstream.lastRequest()?.body as { input: ResponsesInputItem[] }).input;
    expect(input.find((item) => item.type === 'function_call')).toMatchObject({ call_id: 'call_AB6AaRZ1FYZB2RwS6A5vbdqn', name: 'calculator', arguments: JSON.stringify({ a: 12, b: 7, op: 'add' }) });
    expect(input.at(-1)).toEqual({ type: 'function_call_output', call_id: 'call_AB6AaRZ1FYZB2RwS6A5vbdqn', output: '19' });
    // The reasoning item is replayed from the thinking block's signature (encrypted content).
    expect(input.find((item) => item.type === 'reasoning')).toBeDefined();
  });
});

describeBrokenAnswers('OpenAI Responses upstream', {
  suite: e2e,
  request: news,
  recording: (delivery) => reply.fixture('openai-phase.1', delivery),
  // created, in_progress, output_item.added, content_part.added, then the first text delta
  midStreamAfterEvents: 5,
});

describeByokCredential('OpenAI Responses upstream', {
  suite: e2e,
  provider: 'openai',
  key: BYOK_KEY,
  sentAs: 'as the bearer token',
  keyOf: (sent) => sent.headers.authorization,
  expectedKey: `Bearer ${BYOK_KEY}`,
  request: news,
  replies: { message: reply.fixture('openai-phase.1'), stream: reply.fixture('openai-phase.1') },
  // openai-phase.1.json: 7243 input of which 3072 cached, 423 output:
  // (4171 x 1.25 + 3072 x 0.125 + 423 x 10) / 1e6 = (5213.75 + 384 + 4230) / 1e6 = $0.00982775
  cost: 0.00982775,
  sharedSecret: SHARED_KEY,
});
