/**
 * Claude Sonnet 5.5's cache reads cost $0.10 per million tokens (0.05x its $2 input, since Anthropic's cut of
 * 2026-10-07), on Anthropic's API and on Bedrock's global profile alike, on the built-in catalog: the Anthropic
 * SDK's answer carries that cost, and `GET /models` lists that price. Before, both endpoints charged $0.20.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicStep, reply, startFakeAnthropic, startFakeBedrock, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicClient, resetFakes } from '#test/integration/routing/routing-support.ts';
import { listedEndpoints } from '#test/integration/routing/bedrock-region-support.ts';

const SLUG = 'anthropic/claude-sonnet-5.5';
// USD per million tokens: $2 in, $10 out, $0.10 a cache read.
const COST = (1_000 * 2 + 100 * 10 + 1_000_000 * 0.1) / 1e6;

let anthropic: FakeUpstream;
let bedrock: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  [anthropic, bedrock] = await Promise.all([startFakeAnthropic(), startFakeBedrock()]);
  gateway = await startTestGateway({
    catalogYaml: [
      'providers:',
      '  ollama: { enabled: false }',
      `  anthropic: { base_url: "${anthropic.url}", api_key: "sk-ant-sonnet55-0001" }`,
      `  bedrock: { base_url: "${bedrock.url}", api_key: "bedrock-sonnet55-0001" }`,
      '',
    ].join('\n'),
  });
}, 120_000);
afterAll(async () => {
  await gateway?.close();
  await Promise.all([anthropic?.close(), bedrock?.close()]);
});
beforeEach(() => resetFakes(anthropic, bedrock));

/** The Anthropic SDK's call for Sonnet 5.5 on one provider, and the cost the gateway put in its usage. */
async function costOn(provider: 'anthropic' | 'bedrock'): Promise<number> {
  const message = await anthropicClient(gateway).messages.create({
    model: 'claude-sonnet-5-5',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'Hello' }],
    ...({ provider: { only: [provider] } } as object),
  });
  expect(message.usage).toMatchObject({ input_tokens: 1_000, output_tokens: 100, cache_read_input_tokens: 1_000_000 });
  return (message.usage as unknown as { cost: number }).cost;
}

describe('Claude Sonnet 5.5 cache reads', () => {
  it('cost $0.10 per million on Anthropic’s API', async () => {
    anthropic.enqueue(anthropicStep({ text: 'Cached.', usage: { input: 1_000, output: 100, cacheRead: 1_000_000 } }));
    expect(await costOn('anthropic')).toBeCloseTo(COST, 12);
    expect(anthropic.requests).toHaveLength(1);
  });

  it('cost $0.10 per million on Bedrock’s global profile', async () => {
    const usage = { inputTokens: 1_000, outputTokens: 100, cacheReadInputTokens: 1_000_000, cacheWriteInputTokens: 0, totalTokens: 1_001_100 };
    bedrock.enqueue(reply.json({ output: { message: { role: 'assistant', content: [{ text: 'Cached.' }] } }, stopReason: 'end_turn', usage, metrics: { latencyMs: 80 } }));
    expect(await costOn('bedrock')).toBeCloseTo(COST, 12);
    expect(bedrock.requests.map((request) => request.params.modelId)).toEqual(['global.anthropic.claude-sonnet-5-5']);
  });

  it('are listed at $0.10 on both endpoints, and $0.11 on Bedrock’s geo profiles', async () => {
    const endpoints = await listedEndpoints(gateway, SLUG);
    expect(endpoints.map((endpoint) => [endpoint.provider, endpoint.pricing.cache_read])).toEqual([
      ['anthropic', 0.1],
      ['bedrock', 0.1],
    ]);
    const geo = endpoints.find((endpoint) => endpoint.provider === 'bedrock')?.regional_pricing;
    expect(geo?.us?.cache_read).toBeCloseTo(0.11, 12);
    expect(geo?.europe?.cache_read).toBeCloseTo(0.11, 12);
  });
});
