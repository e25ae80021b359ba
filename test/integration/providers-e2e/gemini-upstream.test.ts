/**
 * End to end through the real gateway with the official Anthropic SDK, against a Gemini generateContent
 * upstream replaying real recordings: text with thought tokens counted as output, a function call with its
 * thought signature whose result must come back as a `functionResponse` part, cost to the cent, BYOK, and
 * broken answers.
 */
import { describe, expect, it } from 'vitest';
import { readFixture, reply, startFakeGemini } from '#test/helpers/fake-upstreams/index.ts';
import { expectCost, expectWellFormed, finalStreamUsage, gatewayUsage, providerOf, streamThrough, WEATHER_TOOL } from '#test/integration/providers-e2e/e2e-support.ts';
import { useE2eTarget } from '#test/integration/providers-e2e/e2e-target.ts';
import { describeBrokenAnswers, describeByokCredential } from '#test/integration/providers-e2e/e2e-scenarios.ts';

const SHARED_KEY = 'AIzaSy-e2e-shared-gemini-0001';
const BYOK_KEY = 'AIzaSy-e2e-byok-gemini-5t6y';
const MODEL = 'e2e/gemini';
// Prices per million tokens: input 2, output 12, cache read 0.2.
const PRICING = '{ input: 2, output: 12, cache_read: 0.2 }';

const e2e = useE2eTarget({
  startUpstream: startFakeGemini,
  providerYaml: (fake) => `  google: { base_url: "${fake.baseURL}", api_key: "${SHARED_KEY}" }`,
  model: { slug: MODEL, provider: 'google', upstreamModel: 'gemini-3-pro-preview', pricing: PRICING },
});

const strawberry = { model: MODEL, max_tokens: 1024, messages: [{ role: 'user' as const, content: 'How many r are in strawberry?' }] };
const weather = { role: 'user' as const, content: 'What is the weather in San Francisco?' };

interface GeminiContent {
  role: string;
  parts: Array<Record<string, unknown>>;
}

describe('Gemini upstream, shared key', () => {
  it('returns the recorded text with thought tokens counted as output', async () => {
    e2e.upstream.enqueue(reply.fixture('google-text'));
    const message = await e2e.client.messages.create(strawberry);
    const recorded = readFixture('google', 'google-text') as { candidates: Array<{ content: { parts: Array<{ text: string }> } }> };

    const text = message.content.find((block) => block.type === 'text');
    expect(text).toMatchObject({ type: 'text', text: recorded.candidates[0]?.content.parts[0]?.text });
    expect(message.stop_reason).toBe('end_turn');
    expect(message.model).toBe(MODEL);
    expect(providerOf(message)).toBe('Google AI Studio');
    const usage = gatewayUsage(message);
    // Output = candidates 28 + thoughts 244 = 272.
    expect(usage).toMatchObject({ input_tokens: 9, output_tokens: 272, is_byok: false });
    // 9 x $2/M + 272 x $12/M = (18 + 3264) / 1e6 = $0.003282
    expectCost(usage.cost, 0.003282);

    const sent = e2e.upstream.lastRequest();
    expect(sent?.path).toBe('/v1beta/models/gemini-3-pro-preview:generateContent');
    expect(sent?.headers['x-goog-api-key']).toBe(SHARED_KEY);
    expect(sent?.body).toMatchObject({ contents: [{ role: 'user', parts: [{ text: strawberry.messages[0]?.content }] }] });
  });

  it('streams the recorded text as a well-formed sequence', async () => {
    e2e.upstream.enqueue(reply.fixture('google-text'));
    const { events, message } = await streamThrough(e2e.client, strawberry);
    const outline = expectWellFormed(events);
    expect(outline).toContain('message_delta');
    expect(message.content.filter((block) => block.type === 'text').map((block) => (block.type === 'text' ? block.text : '')).join('')).toContain('strawberry');
    expect(message.model).toBe(MODEL);
    expect(e2e.upstream.lastRequest()?.path).toBe('/v1beta/models/gemini-3-pro-preview:streamGenerateContent');
    const usage = finalStreamUsage(events);
    expect(usage).toMatchObject({ input_tokens: 9, output_tokens: 23 + 185, is_byok: false });
    // 9 x $2/M + (23 + 185) x $12/M = (18 + 2496) / 1e6 = $0.002514
    expectCost(usage.cost, 0.002514);
  });

  it('completes a tool-use round trip: the tool_result reaches the upstream as a functionResponse part', async () => {
    e2e.upstream.enqueue(reply.fixture('google-tool-call'), reply.fixture('google-text'));
    const first = await e2e.client.messages.create({ ...strawberry, tools: [WEATHER_TOOL], messages: [weather] });
    expect(first.stop_reason).toBe('tool_use');
    const toolUse = first.content.find((block) => block.type === 'tool_use');
    expect(toolUse).toMatchObject({ type: 'tool_use', name: 'weather', input: { location: 'San Francisco' } });
    const usage = gatewayUsage(first);
    expect(usage).toMatchObject({ input_tokens: 29, output_tokens: 15 + 893 });
    // 29 x $2/M + (15 + 893) x $12/M = (58 + 10896) / 1e6 = $0.010954
    expectCost(usage.cost, 0.010954);
    expect(e2e.upstream.lastRequest()?.body).toMatchObject({ tools: [{ functionDeclarations: [expect.objectContaining({ name: 'weather' })] }] });

    const toolUseId = toolUse?.type === 'tool_use' ? toolUse.id : '';
    await e2e.client.messages.create({
      ...strawberry,
      tools: [WEATHER_TOOL],
      messages: [weather, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content: 'Sunny, 18°C' }] }],
    });
    const contents = (e2e.upstream.lastRequest()?.body as { contents: GeminiContent[] }).contents;
    const recorded = readFixture('google', 'google-tool-call') as { candidates: Array<{ content: { parts: Array<{ thoughtSignature: string }> } }> };
    // The function call goes back with the thought signature Gemini 3 requires on the next turn.
    expect(contents[1]).toMatchObject({ role: 'model', parts: [{ functionCall: { name: 'weather', args: { location: 'San Francisco' } }, thoughtSignature: recorded.candidates[0]?.content.parts[0]?.thoughtSignature }] });
    expect(contents[2]?.role).toBe('user');
    // Gemini's recording has no call id, so the gateway's id names the call; the response carries the same one.
    expect(contents[2]?.parts).toEqual([{ functionResponse: { id: toolUseId, name: 'weather', response: expect.objectContaining({ content: 'Sunny, 18°C' }) } }]);
  });

  it('streams a function call with its parsed arguments', async () => {
    e2e.upstream.enqueue(reply.fixture('google-tool-call'));
    const { events, message } = await streamThrough(e2e.client, { ...strawberry, tools: [WEATHER_TOOL], messages: [weather] });
    const outline = expectWellFormed(events);
    const toolIndex = message.content.findIndex((block) => block.type === 'tool_use');
    expect(outline).toContain(`start ${toolIndex} tool_use`);
    expect(message.content[toolIndex]).toMatchObject({ type: 'tool_use', name: 'weather', input: { location: 'San Francisco' } });
    expect(message.stop_reason).toBe('tool_use');
    // 29 x $2/M + (15 + 45) x $12/M = (58 + 720) / 1e6 = $0.000778
    expectCost(finalStreamUsage(events).cost, 0.000778);
  });
});

describeBrokenAnswers('Gemini upstream', {
  suite: e2e,
  request: strawberry,
  // The text recording streams two chunks: fault after the first one.
  recording: (delivery) => reply.fixture('google-text', delivery),
  midStreamAfterEvents: 1,
});

describeByokCredential('Gemini upstream', {
  suite: e2e,
  provider: 'google',
  key: BYOK_KEY,
  sentAs: 'as x-goog-api-key',
  keyOf: (sent) => sent.headers['x-goog-api-key'],
  expectedKey: BYOK_KEY,
  request: strawberry,
  replies: { message: reply.fixture('google-text'), stream: reply.fixture('google-text') },
  cost: 0.003282,
  sharedSecret: SHARED_KEY,
});
