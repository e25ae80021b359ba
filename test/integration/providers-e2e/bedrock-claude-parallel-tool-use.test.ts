/**
 * `tool_choice.disable_parallel_tool_use` for Claude on Bedrock, end to end through the gateway with the
 * official Anthropic SDK against a Bedrock Converse fake. Converse has no parallel-call switch of its own,
 * but Claude on Bedrock reads Anthropic's `tool_choice` from `additionalModelRequestFields`, so the client's
 * "at most one tool call" must reach it there rather than be dropped.
 */
import { describe, expect, it } from 'vitest';
import { reply, startFakeBedrock } from '#test/helpers/fake-upstreams/index.ts';
import { WEATHER_TOOL } from '#test/integration/providers-e2e/e2e-support.ts';
import { useE2eTarget } from '#test/integration/providers-e2e/e2e-target.ts';
import { bedrockProviderYaml } from '#test/integration/providers/vendor-gateway-support.ts';

const MODEL = 'e2e/claude-on-bedrock';

const e2e = useE2eTarget({
  startUpstream: startFakeBedrock,
  providerYaml: (fake) => bedrockProviderYaml(fake, 'AKIAE2EPARALLEL00001', 'e2e/secret/parallel/tool/use/000000000001'),
  model: { slug: MODEL, provider: 'bedrock', upstreamModel: '"us.anthropic.claude-sonnet-4-5-20250929-v1:0"', pricing: '{ input: 3, output: 15 }' },
});

const answer = {
  output: { message: { role: 'assistant', content: [{ text: 'Sunny.' }] } },
  stopReason: 'end_turn',
  usage: { inputTokens: 30, outputTokens: 3, totalTokens: 33 },
  metrics: { latencyMs: 100 },
};

const tools = [WEATHER_TOOL, { ...WEATHER_TOOL, name: 'forecast' }];
const messages = [{ role: 'user' as const, content: 'Weather in Paris and Rome?' }];

describe('disable_parallel_tool_use for Claude on Bedrock', () => {
  it.each([
    [{ type: 'auto' as const, disable_parallel_tool_use: true }, { type: 'auto', disable_parallel_tool_use: true }],
    [{ type: 'any' as const, disable_parallel_tool_use: true }, { type: 'any', disable_parallel_tool_use: true }],
    [{ type: 'tool' as const, name: 'weather', disable_parallel_tool_use: true }, { type: 'tool', name: 'weather', disable_parallel_tool_use: true }],
  ])('sends tool_choice %j to Claude as %j', async (toolChoice, sent) => {
    e2e.upstream.clear();
    e2e.upstream.enqueue(reply.json(answer));
    const message = await e2e.client.messages.create({ model: MODEL, max_tokens: 256, tools, tool_choice: toolChoice, messages });

    expect(message.content).toEqual([{ type: 'text', text: 'Sunny.' }].map((block) => expect.objectContaining(block)));
    const body = e2e.upstream.lastRequest()?.body as { additionalModelRequestFields?: { tool_choice?: unknown } };
    expect(body.additionalModelRequestFields?.tool_choice).toEqual(sent);
  });
});
