/**
 * Groq's retirements on the built-in catalog (its deprecations page: Llama 4 Maverick on 2026-03-09, Qwen3 32B
 * on 2026-07-17, Llama 3.3 70B Versatile and Llama 3.1 8B Instant on 2026-08-16), with Groq and Together pointed
 * at fakes and the gateway's clock on 2026-11-28. The Anthropic SDK's request for Llama 3.3 70B, which Groq
 * served cheapest, now goes to Together; allowing only Groq is a NotFoundError naming the retirement and the
 * providers still serving the model; Qwen3 32B, retired on both its providers, is refused; Groq is never called;
 * `GET /models` lists the Groq endpoints as retired.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openAiChatStep, startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicClient, rejection, resetFakes, upstreamModelOf } from '#test/integration/routing/routing-support.ts';
import { listedEndpoints } from '#test/integration/routing/bedrock-region-support.ts';
import { builtInCatalogYaml } from '#test/integration/providers/vendor-gateway-support.ts';

let groq: FakeUpstream;
let together: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  [groq, together] = await Promise.all([startFakeOpenAiChat(), startFakeOpenAiChat()]);
  gateway = await startTestGateway({
    catalogYaml: builtInCatalogYaml(
      `  groq: { base_url: "${groq.baseURL}", api_key: "gsk-groq-retired-0001" }`,
      `  together: { base_url: "${together.baseURL}", api_key: "together-retired-0001" }`,
    ),
  });
}, 120_000);
afterAll(async () => {
  await gateway?.close();
  await Promise.all([groq?.close(), together?.close()]);
});
beforeEach(() => resetFakes(groq, together));

function ask(model: string, extra: object = {}) {
  return anthropicClient(gateway).messages.create({ model, max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }], ...extra });
}

describe('the Groq endpoints retired in 2026', () => {
  it('Llama 3.3 70B goes to Together, no longer to Groq, its cheapest endpoint before', async () => {
    together.enqueue(openAiChatStep({ text: 'Hello back', usage: { input: 10, output: 3 } }));
    const answer = await ask('meta-llama/llama-3.3-70b-instruct');
    expect(answer.content).toEqual([expect.objectContaining({ type: 'text', text: 'Hello back' })]);
    expect(together.requests.map(upstreamModelOf)).toEqual(['meta-llama/Llama-3.3-70B-Instruct-Turbo']);
    expect(groq.requests).toHaveLength(0);
  });

  it.each([
    ['meta-llama/llama-3.3-70b-instruct', 'was retired on groq on 2026-08-16 and on cerebras on 2026-02-16; still served by together, fireworks'],
    ['meta-llama/llama-3.1-8b-instruct', 'was retired on groq on 2026-08-16; still served by together'],
    ['meta-llama/llama-4-maverick', 'was retired on groq on 2026-03-09; still served by together, fireworks'],
  ])('%s allowing only Groq is a NotFoundError naming the retirement, and Groq is never called', async (model, retirement) => {
    const error = await rejection(ask(model, { provider: { only: ['groq'] } }));
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect(error.message).toContain(`${model} ${retirement}`);
    expect(groq.requests).toHaveLength(0);
  });

  it('Qwen3 32B, retired on Groq and on Cerebras, is refused', async () => {
    const error = await rejection(ask('qwen/qwen3-32b'));
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect(error.message).toContain('qwen/qwen3-32b was retired on groq on 2026-07-17 and on cerebras on 2026-02-16');
    expect(groq.requests).toHaveLength(0);
  });

  it.each([
    ['meta-llama/llama-3.3-70b-instruct', '2026-08-16T00:00:00Z'],
    ['meta-llama/llama-3.1-8b-instruct', '2026-08-16T00:00:00Z'],
    ['meta-llama/llama-4-maverick', '2026-03-09T00:00:00Z'],
    ['qwen/qwen3-32b', '2026-07-17T00:00:00Z'],
  ])('GET /models lists %s on Groq as retired on %s', async (model, retiresAt) => {
    const onGroq = (await listedEndpoints(gateway, model)).find((endpoint) => endpoint.provider === 'groq') as unknown as Record<string, unknown>;
    expect(onGroq).toMatchObject({ lifecycle: 'retired', retires_at: retiresAt });
  });
});
