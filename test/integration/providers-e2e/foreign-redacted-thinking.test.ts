/**
 * A conversation that moves from Bedrock to an Anthropic-format upstream, end to end with the official SDK.
 * Bedrock's redacted reasoning comes back as a `redacted_thinking` block whose `data` is the gateway's envelope
 * of Bedrock's material; Anthropic refuses `data` it did not encrypt, so that block is left out of the next
 * turn sent to Anthropic, as a thinking block another vendor signed is, while everything else goes unchanged.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, startFakeBedrock, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { anthropicClient, modelYaml } from '#test/integration/providers-e2e/e2e-target.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { bedrockProviderYaml } from '#test/integration/providers/vendor-gateway-support.ts';

const BEDROCK_MODEL = 'e2e/nova-redacted';
const CLAUDE_MODEL = 'e2e/claude-after-bedrock';
const REDACTED = 'RWHLsG0xZ3JlZGFjdGVkLXJlYXNvbmluZy1ieXRlcw==';

let bedrock: FakeUpstream;
let anthropic: FakeUpstream;
let gateway: TestGateway;
let client: Anthropic;

beforeAll(async () => {
  bedrock = await startFakeBedrock();
  anthropic = await startFakeAnthropic();
  const catalogYaml = [
    'providers:',
    bedrockProviderYaml(bedrock, 'AKIAE2EREDACTED00001', 'e2e/secret/redacted/bedrock/000001'),
    `  anthropic: { base_url: "${anthropic.url}", api_key: "sk-ant-e2e-redacted-0001" }`,
    'models:',
    modelYaml({ slug: BEDROCK_MODEL, provider: 'bedrock', upstreamModel: 'amazon.nova-pro-v1:0', pricing: '{ input: 0.8, output: 3.2 }' }),
    modelYaml({ slug: CLAUDE_MODEL, provider: 'anthropic', upstreamModel: 'claude-sonnet-4-5', pricing: '{ input: 3, output: 15 }' }),
    '',
  ].join('\n');
  gateway = await startTestGateway({ catalogYaml });
  client = anthropicClient(gateway);
});

afterAll(async () => {
  await gateway?.close();
  await bedrock?.close();
  await anthropic?.close();
});

/** A Converse answer whose reasoning Bedrock redacted. */
const converseWithRedactedReasoning = {
  output: { message: { role: 'assistant', content: [{ reasoningContent: { redactedContent: REDACTED } }, { text: 'There are 3.' }] } },
  stopReason: 'end_turn',
  usage: { inputTokens: 20, outputTokens: 30, totalTokens: 50 },
  metrics: { latencyMs: 300 },
};

describe('a redacted_thinking block Bedrock produced, on the next turn to Anthropic', () => {
  it('is left out of the body Anthropic receives, and the turn is served', async () => {
    bedrock.enqueue(reply.json(converseWithRedactedReasoning));
    const question = { role: 'user' as const, content: 'How many r are in strawberry?' };
    const first = await client.messages.create({ model: BEDROCK_MODEL, max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [question] });
    expect(first.content.map((block) => block.type)).toEqual(['redacted_thinking', 'text']);

    anthropic.enqueue(reply.fixture('anthropic-text'));
    const second = await client.messages.create({
      model: CLAUDE_MODEL,
      max_tokens: 2048,
      messages: [question, { role: 'assistant', content: first.content }, { role: 'user', content: 'And in raspberry?' }],
    });
    expect(second.type).toBe('message');

    const sent = anthropic.lastRequest()?.body as { messages: Array<{ role: string; content: unknown }> };
    expect(sent.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'There are 3.' }] });
  });
});
