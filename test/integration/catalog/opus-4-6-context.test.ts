/**
 * Claude Opus 4.6's 1M-token context window over HTTP, on the built-in catalog with a fake Anthropic: the window
 * is the model's own (its overview page: "Context window: 1M tokens"), generally available without the
 * `context-1m-2025-08-07` beta and billed at one rate across it. A prompt past 200K tokens from the Anthropic SDK,
 * with or without the beta, reaches Anthropic (not the gateway's context-length 400) and costs $5 in and $25 out
 * per million tokens, not the long-context premium; `GET /models` lists the 1M window and no long-context tier.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ModelList } from '#src/api-types.ts';
import { anthropicStep, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicClient, resetFakes } from '#test/integration/routing/routing-support.ts';

// About 250,000 tokens by the gateway's estimate (four characters a token): past 200K, well within 1M.
const LONG_PROMPT = 'word '.repeat(200_000);
const USAGE = { input: 250_000, output: 1_000 };
// $5 in, $25 out per million tokens, across the whole window.
const STANDARD_COST = (USAGE.input * 5 + USAGE.output * 25) / 1_000_000;

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeAnthropic();
  gateway = await startTestGateway({ catalogYaml: `providers:\n  ollama: { enabled: false }\n  anthropic: { base_url: "${upstream.url}", api_key: "sk-ant-opus-context-0001" }\n` });
}, 120_000);
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});
beforeEach(() => resetFakes(upstream));

describe.each([
  { beta: false, label: 'without the beta' },
  { beta: true, label: 'with the context-1m beta' },
])('a prompt past 200K tokens to Claude Opus 4.6 $label', ({ beta }) => {
  it('reaches Anthropic and costs the standard rates', async () => {
    upstream.enqueue(anthropicStep({ text: 'Read it all.', usage: USAGE }));
    const client = anthropicClient(gateway);
    const request = { model: 'claude-opus-4-6', max_tokens: 64, messages: [{ role: 'user' as const, content: LONG_PROMPT }] };
    const message = beta ? await client.beta.messages.create({ ...request, betas: ['context-1m-2025-08-07'] }) : await client.messages.create(request);

    expect(message.content[0]).toMatchObject({ type: 'text', text: 'Read it all.' });
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.lastRequest().body).toMatchObject({ model: 'claude-opus-4-6' });
    expect((message.usage as unknown as { cost: number }).cost).toBeCloseTo(STANDARD_COST, 12);
  });
});

it('lists Claude Opus 4.6 with its 1M window and no long-context tier on any endpoint', async () => {
  const response = await fetch(`${gateway.baseUrl}/models/anthropic%2Fclaude-opus-4.6`, { headers: { authorization: `Bearer ${gateway.api_key}` } });
  expect(response.status).toBe(200);
  const model = (await response.json()) as ModelList['data'][number];
  expect(model).toMatchObject({ context_length: 1_000_000, max_input_tokens: 1_000_000, max_tokens: 128_000 });
  expect(model.endpoints.map((endpoint) => [endpoint.provider, endpoint.context_length, endpoint.pricing.long_context ?? null])).toEqual([
    ['anthropic', 1_000_000, null],
    ['bedrock', 1_000_000, null],
  ]);
});
