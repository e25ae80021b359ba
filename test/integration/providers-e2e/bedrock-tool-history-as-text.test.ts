/**
 * A conversation with earlier tool calls and results sent to Bedrock without active tools (no `tools`, or
 * `tool_choice: none`), end to end through the gateway with the official Anthropic SDK against a Bedrock
 * Converse fake. Converse refuses tool content without active tools and the AI SDK's Bedrock package drops it,
 * so the model would be asked about results it never sees: the gateway sends the calls and results as text.
 */
import { describe, expect, it } from 'vitest';
import type Anthropic from '@anthropic-ai/sdk';
import { reply, startFakeBedrock } from '#test/helpers/fake-upstreams/index.ts';
import { WEATHER_TOOL } from '#test/integration/providers-e2e/e2e-support.ts';
import { useE2eTarget } from '#test/integration/providers-e2e/e2e-target.ts';
import { bedrockProviderYaml } from '#test/integration/providers/vendor-gateway-support.ts';

const MODEL = 'e2e/nova-tool-history';

const e2e = useE2eTarget({
  startUpstream: startFakeBedrock,
  providerYaml: (fake) => bedrockProviderYaml(fake, 'AKIAE2ETOOLHISTORY01', 'e2e/secret/tool/history/as/text/00000000001'),
  model: { slug: MODEL, provider: 'bedrock', upstreamModel: 'amazon.nova-pro-v1:0', pricing: '{ input: 0.8, output: 3.2 }' },
});

const answer = {
  output: { message: { role: 'assistant', content: [{ text: 'Paris is sunny at 18°C.' }] } },
  stopReason: 'end_turn',
  usage: { inputTokens: 60, outputTokens: 8, totalTokens: 68 },
  metrics: { latencyMs: 100 },
};

const history: Anthropic.MessageParam[] = [
  { role: 'user', content: 'What is the weather in Paris?' },
  { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01history', name: 'weather', input: { city: 'Paris' } }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01history', content: '18°C, sunny' }, { type: 'text', text: 'Summarise it in one line.' }] },
];

interface ConverseBody {
  messages: { role: string; content: Record<string, unknown>[] }[];
  toolConfig?: unknown;
}

describe('tool history without active tools on Bedrock', () => {
  it.each([
    ['no tools offered', {}],
    ['tool_choice none', { tools: [WEATHER_TOOL], tool_choice: { type: 'none' as const } }],
  ])('%s: the calls and results reach the model as text', async (_label, extra) => {
    e2e.upstream.clear();
    e2e.upstream.enqueue(reply.json(answer));
    const message = await e2e.client.messages.create({ model: MODEL, max_tokens: 256, messages: history, ...extra });

    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'Paris is sunny at 18°C.' })]);
    const body = e2e.upstream.lastRequest()?.body as ConverseBody;
    expect(body.toolConfig).toBeUndefined();
    const parts = body.messages.flatMap((turn) => turn.content);
    expect(parts.some((part) => 'toolUse' in part || 'toolResult' in part)).toBe(false);
    const texts = parts.map((part) => part.text).filter((text): text is string => typeof text === 'string');
    expect(texts).toContain('[Tool call toolu_01history: weather({"city":"Paris"})]');
    expect(texts).toContain('[Tool result toolu_01history]\n18°C, sunny');
    expect(texts).toContain('Summarise it in one line.');
  });
});
