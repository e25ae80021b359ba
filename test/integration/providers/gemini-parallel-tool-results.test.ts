/**
 * Parallel function calls on Gemini answered out of order: Claude Code and other clients send a turn's
 * `tool_result` blocks in the order their tools finished, while Gemini pairs the i-th `functionResponse` with
 * the i-th `functionCall` (the fake refuses another order, as Google's executor does). The gateway sends the
 * results in the calls' order; before, it kept the client's order and Gemini answered 400.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { geminiStep, startFakeGemini, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicClient, catalogYaml } from '#test/integration/routing/routing-support.ts';

const USAGE = { input: 40, output: 8 };
const TOOLS = ['get_weather', 'get_time', 'get_population'].map((name) => ({
  name,
  description: `Answers ${name.slice(4)} for a city.`,
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
}));

let gemini: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  gemini = await startFakeGemini();
  const providers = [`  gem: { family: google, display_name: "Gem Cloud", base_url: "${gemini.baseURL}", api_key: "gem-key-parallel-0001" }`];
  const model = ['  test/gemini:', '    context_length: 1000000', '    capabilities: { tools: true }', '    endpoints: [{ provider: gem, model: gemini-2.5-flash, pricing: { input: 1, output: 2 } }]'].join('\n');
  gateway = await startTestGateway({ catalogYaml: catalogYaml(providers, [model]) });
});
afterAll(async () => {
  await gateway?.close();
  await gemini?.close();
});
beforeEach(() => gemini.clear());

type Part = { functionCall?: { name: string; id?: string }; functionResponse?: { name: string; id?: string; response: unknown } };

describe('parallel tool results answered out of order, on Gemini', () => {
  it.each([false, true])('reach Gemini in the order of the calls (stream: %s)', async (stream) => {
    const client = anthropicClient(gateway);
    const question: Anthropic.MessageParam = { role: 'user', content: 'Weather, time and population of Paris?' };
    gemini.enqueue(geminiStep({ calls: TOOLS.map((tool) => ({ name: tool.name, input: { city: 'Paris' } })), usage: USAGE }).json);
    const first = await client.messages.create({ model: 'test/gemini', max_tokens: 256, tools: TOOLS, messages: [question] });
    const calls = first.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
    expect(calls.map((call) => call.name)).toEqual(['get_weather', 'get_time', 'get_population']);

    // The client's tools finished last-first: it answers in that order.
    const results: Anthropic.ToolResultBlockParam[] = [...calls].reverse().map((call) => ({ type: 'tool_result', tool_use_id: call.id, content: `${call.name} of Paris` }));
    const followUp = { model: 'test/gemini', max_tokens: 256, tools: TOOLS, messages: [question, { role: 'assistant' as const, content: first.content }, { role: 'user' as const, content: results }] };
    gemini.enqueue(geminiStep({ text: 'Sunny, noon, two million.', usage: USAGE }));
    const answer = stream ? await client.messages.stream(followUp).finalMessage() : await client.messages.create(followUp);

    expect(answer.content).toEqual([expect.objectContaining({ type: 'text', text: 'Sunny, noon, two million.' })]);
    const contents = (gemini.lastRequest().body as { contents: { role: string; parts: Part[] }[] }).contents;
    const callTurn = contents.findIndex((content) => content.parts.some((part) => part.functionCall));
    const sentCalls = contents[callTurn]!.parts.flatMap((part) => (part.functionCall ? [part.functionCall.name] : []));
    const sentResponses = contents[callTurn + 1]!.parts.flatMap((part) => (part.functionResponse ? [part.functionResponse.name] : []));
    expect(sentResponses).toEqual(sentCalls);
    expect(JSON.stringify(contents[callTurn + 1])).toContain('get_time of Paris');
  });
});
