/**
 * Gemini 3 recordings replayed through the gateway to the official SDK: a text answer with thought tokens
 * (JSON and stream), and a stream of two parallel function calls whose arguments arrive as `partialArgs`
 * deltas, the first call signed. The calls come back on the next turn as one model turn, the thought
 * signature on the first call only, as Gemini requires, and each result as a `functionResponse`; a call Gemini
 * never signed goes with the documented `skip_thought_signature_validator` sentinel.
 */
import { describe, expect, it } from 'vitest';
import { readFixture, reply, startFakeGemini } from '#test/helpers/fake-upstreams/index.ts';
import { expectCost, expectWellFormed, finalStreamUsage, gatewayUsage, streamThrough } from '#test/integration/providers-e2e/e2e-support.ts';
import { useE2eTarget } from '#test/integration/providers-e2e/e2e-target.ts';

const MODEL = 'e2e/gemini-3';
// Prices per million tokens: input 2, output 12.
const e2e = useE2eTarget({
  startUpstream: startFakeGemini,
  providerYaml: (fake) => `  google: { base_url: "${fake.baseURL}", api_key: "AIzaSy-e2e-gemini3-0001" }`,
  model: { slug: MODEL, provider: 'google', upstreamModel: 'gemini-3-pro-preview', pricing: '{ input: 2, output: 12 }' },
});

const strawberry = { model: MODEL, max_tokens: 1024, messages: [{ role: 'user' as const, content: 'How many r are in strawberry?' }] };
const GET_WEATHER = { name: 'getWeather', description: 'Get the weather in a city', input_schema: { type: 'object' as const, properties: { location: { type: 'string' } }, required: ['location'] } };
const twoCities = { role: 'user' as const, content: 'What is the weather in Boston and in San Francisco?' };

interface GeminiContent {
  role: string;
  parts: Array<Record<string, unknown>>;
}

describe('Gemini 3 recordings', () => {
  it('answers the recorded text with its thought tokens counted as output (JSON)', async () => {
    e2e.upstream.enqueue(reply.fixture('google-reasoning-gemini3'));
    const message = await e2e.client.messages.create(strawberry);
    const recorded = readFixture('google', 'google-reasoning-gemini3') as { candidates: Array<{ content: { parts: Array<{ text: string }> } }> };
    expect(message.content.filter((block) => block.type === 'text')).toEqual([{ type: 'text', text: recorded.candidates[0]?.content.parts[0]?.text }]);
    expect(message.stop_reason).toBe('end_turn');
    const usage = gatewayUsage(message) as ReturnType<typeof gatewayUsage> & { output_tokens_details?: { thinking_tokens?: number } };
    // Output = candidates 29 + thoughts 258 = 287.
    expect(usage).toMatchObject({ input_tokens: 9, output_tokens: 287, output_tokens_details: { thinking_tokens: 258 } });
    // 9 x $2/M + 287 x $12/M = (18 + 3444) / 1e6 = $0.003462
    expectCost(usage.cost, 0.003462);
  });

  it('streams the recorded text with usage from the last chunk', async () => {
    e2e.upstream.enqueue(reply.fixture('google-reasoning-gemini3'));
    const { events, message } = await streamThrough(e2e.client, strawberry);
    expectWellFormed(events);
    expect(message.content.filter((block) => block.type === 'text').map((block) => (block.type === 'text' ? block.text : '')).join('')).toBe('There are **3** "r"s in strawberry.\n\nSt**r**awbe**rr**y');
    const usage = finalStreamUsage(events);
    // Output = candidates 23 + thoughts 302 = 325; 9 x $2/M + 325 x $12/M = (18 + 3900) / 1e6 = $0.003918
    expect(usage).toMatchObject({ input_tokens: 9, output_tokens: 325 });
    expectCost(usage.cost, 0.003918);
  });

  it('streams two parallel calls built from partialArgs, and sends them back signed as Gemini gave them', async () => {
    e2e.upstream.enqueue(reply.fixture('google-stream-tool-call-arguments'), reply.fixture('google-text'));
    const { events, message } = await streamThrough(e2e.client, { ...strawberry, tools: [GET_WEATHER], messages: [twoCities] });
    expectWellFormed(events);
    expect(message.stop_reason).toBe('tool_use');
    const calls = message.content.filter((block) => block.type === 'tool_use');
    expect(calls.map((call) => ({ name: call.name, input: call.input }))).toEqual([
      { name: 'getWeather', input: { location: 'Boston' } },
      { name: 'getWeather', input: { location: 'San Francisco' } },
    ]);
    expect(new Set(calls.map((call) => call.id)).size).toBe(2);
    // 26 x $2/M + (23 + 132) x $12/M = (52 + 1860) / 1e6 = $0.001912
    expectCost(finalStreamUsage(events).cost, 0.001912);

    await e2e.client.messages.create({
      ...strawberry,
      tools: [GET_WEATHER],
      messages: [
        twoCities,
        { role: 'assistant', content: message.content },
        { role: 'user', content: calls.map((call) => ({ type: 'tool_result' as const, tool_use_id: call.id, content: call.id === calls[0]?.id ? 'Rain, 9°C' : 'Fog, 14°C' })) },
      ],
    });
    const contents = (e2e.upstream.lastRequest()?.body as { contents: GeminiContent[] }).contents;
    expect(contents[1]?.role).toBe('model');
    const signature = String((contents[1]?.parts[0] as { thoughtSignature?: string }).thoughtSignature);
    expect(signature).toMatch(/^CiMBjz1rX25KieIB4d4A/);
    expect(contents[1]?.parts).toEqual([
      { functionCall: { id: calls[0]?.id, name: 'getWeather', args: { location: 'Boston' } }, thoughtSignature: signature },
      { functionCall: { id: calls[1]?.id, name: 'getWeather', args: { location: 'San Francisco' } } },
    ]);
    expect(contents[2]?.parts).toEqual([
      { functionResponse: { id: calls[0]?.id, name: 'getWeather', response: expect.objectContaining({ content: 'Rain, 9°C' }) } },
      { functionResponse: { id: calls[1]?.id, name: 'getWeather', response: expect.objectContaining({ content: 'Fog, 14°C' }) } },
    ]);
  });

  it('streams a call whose partialArgs build nested arrays and end without the terminal functionCall part', async () => {
    e2e.upstream.enqueue(reply.fixture('google-stream-tool-call-array-arguments-missing-terminal-function-call'));
    const WRITE_ITEMS = { name: 'writeItems', description: 'Write items', input_schema: { type: 'object' as const, properties: { operations: { type: 'array', items: { type: 'object' } } } } };
    const { events, message } = await streamThrough(e2e.client, { ...strawberry, tools: [WRITE_ITEMS], messages: [{ role: 'user', content: 'Add an apple and a banana.' }] });
    expectWellFormed(events);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content.filter((block) => block.type === 'tool_use').map((block) => (block.type === 'tool_use' ? block.input : null))).toEqual([
      {
        operations: [
          { action: 'add', description: 'Fresh red apple', itemid: 'apple_001', price: 0.5 },
          { action: 'add', description: 'Ripe yellow banana', itemid: 'banana_001', price: 0.3 },
        ],
      },
    ]);
    // 54 x $2/M + (74 + 121) x $12/M = (108 + 2340) / 1e6 = $0.002448
    expectCost(finalStreamUsage(events).cost, 0.002448);
  });

  it('sends a tool call Gemini never signed (a conversation begun on another vendor) with the documented skip sentinel, not a 400', async () => {
    e2e.upstream.enqueue(reply.fixture('google-text'));
    await e2e.client.messages.create({
      ...strawberry,
      tools: [GET_WEATHER],
      messages: [
        twoCities,
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01AnthropicMadeThis', name: 'getWeather', input: { location: 'Boston' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01AnthropicMadeThis', content: 'Rain, 9°C' }] },
      ],
    });
    const contents = (e2e.upstream.lastRequest()?.body as { contents: GeminiContent[] }).contents;
    expect(contents[1]?.parts).toEqual([{ functionCall: { id: 'toolu_01AnthropicMadeThis', name: 'getWeather', args: { location: 'Boston' } }, thoughtSignature: 'skip_thought_signature_validator' }]);
  });
});
