/**
 * OpenAI's parallel tool wrapper, replayed from a real Responses recording: a model may call an undeclared
 * `parallel` function whose arguments list the real calls (`functions.<name>` with their parameters). The
 * client declared only the real tools, so it must see them as separate tool_use blocks (JSON and stream),
 * and their results must reach OpenAI on the next turn as function call outputs of those calls.
 */
import { describe, expect, it } from 'vitest';
import { reply, startFakeOpenAiResponses } from '#test/helpers/fake-upstreams/index.ts';
import { expectCost, expectWellFormed, finalStreamUsage, gatewayUsage, streamThrough, WEATHER_TOOL } from '#test/integration/providers-e2e/e2e-support.ts';
import { useE2eTarget } from '#test/integration/providers-e2e/e2e-target.ts';

const MODEL = 'e2e/gpt-parallel';
// Prices per million tokens: input 1.25, output 10.
const e2e = useE2eTarget({
  startUpstream: startFakeOpenAiResponses,
  providerYaml: (fake) => `  openai: { base_url: "${fake.baseURL}", api_key: "sk-openai-e2e-parallel-0001" }`,
  model: { slug: MODEL, provider: 'openai', upstreamModel: 'gpt-5.4', pricing: '{ input: 1.25, output: 10 }' },
});

const CITY_ATTRACTIONS = { name: 'cityAttractions', description: 'Sights of a city', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] } };
const request = {
  model: MODEL,
  max_tokens: 1024,
  tools: [WEATHER_TOOL, CITY_ATTRACTIONS],
  messages: [{ role: 'user' as const, content: 'Weather in San Francisco, and what to see in Rome?' }],
};
const expectedCalls = [
  { type: 'tool_use', name: 'weather', input: { location: 'San Francisco' } },
  { type: 'tool_use', name: 'cityAttractions', input: { city: 'Rome' } },
];

interface ResponsesInputItem {
  type?: string;
  role?: string;
  call_id?: string;
  name?: string;
  arguments?: string;
  output?: unknown;
}

describe('OpenAI Responses: the parallel tool wrapper', () => {
  it('answers the wrapped calls as separate tool_use blocks, and sends their results back for those calls', async () => {
    e2e.upstream.enqueue(reply.fixture('parallel-tool-call-wrapper.1'));
    const message = await e2e.client.messages.create(request);
    expect(message.content).toMatchObject(expectedCalls);
    expect(message.stop_reason).toBe('tool_use');
    const usage = gatewayUsage(message);
    expect(usage).toMatchObject({ input_tokens: 34, output_tokens: 28 });
    // 34 x $1.25/M + 28 x $10/M = (42.5 + 280) / 1e6 = $0.0003225
    expectCost(usage.cost, 0.0003225);

    const calls = message.content.flatMap((block) => (block.type === 'tool_use' ? [block] : []));
    e2e.upstream.enqueue(reply.fixture('openai-phase.1'));
    await e2e.client.messages.create({
      ...request,
      messages: [
        ...request.messages,
        { role: 'assistant', content: message.content },
        { role: 'user', content: calls.map((call) => ({ type: 'tool_result' as const, tool_use_id: call.id, content: call.name === 'weather' ? 'Sunny, 18°C' : 'The Colosseum' })) },
      ],
    });
    const input = (e2e.upstream.lastRequest()?.body as { input: ResponsesInputItem[] }).input;
    const sentCalls = input.filter((item) => item.type === 'function_call');
    const outputs = input.filter((item) => item.type === 'function_call_output');
    // Every result answers a call the same request carries.
    expect(outputs).toHaveLength(2);
    const callIds = new Set(sentCalls.map((item) => item.call_id));
    for (const output of outputs) expect(callIds).toContain(output.call_id);
    expect(JSON.stringify(outputs)).toContain('Sunny, 18°C');
    expect(JSON.stringify(outputs)).toContain('The Colosseum');
  });

  it('streams the wrapped calls as two tool_use blocks', async () => {
    e2e.upstream.enqueue(reply.fixture('parallel-tool-call-wrapper.1'));
    const { events, message } = await streamThrough(e2e.client, request);
    expect(expectWellFormed(events).filter((entry) => entry.startsWith('start'))).toEqual(['start 0 tool_use', 'start 1 tool_use']);
    expect(message.content).toMatchObject(expectedCalls);
    expect(message.stop_reason).toBe('tool_use');
    expectCost(finalStreamUsage(events).cost, 0.0003225);
  });
});
