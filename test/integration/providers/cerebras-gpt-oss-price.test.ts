/**
 * gpt-oss-120b on Cerebras, priced over HTTP at Cerebras' published rates: $0.35 per million input tokens and
 * $0.75 per million output tokens (its model page; LiteLLM's price file agrees). The answer's `usage.cost` and
 * `GET /models` carry those prices. The fake speaks Cerebras' OpenAI-compatible Chat Completions format.
 */
import { describe, expect, it } from 'vitest';
import { openAiChatStep, startFakeOpenAiChat } from '#test/helpers/fake-upstreams/index.ts';
import { messageBody, postMessage } from '#test/integration/routing/routing-support.ts';
import { useVendorGateway } from './vendor-gateway-support.ts';

const MODEL = 'openai/gpt-oss-120b';
const USAGE = { input: 2000, output: 500 };
const PRICE = { input: 0.35, output: 0.75 };

const setup = useVendorGateway({
  startUpstream: startFakeOpenAiChat,
  providerYaml: (upstream) => `  cerebras: { base_url: "${upstream.url}", api_key: "csk-cerebras-price-0001" }`,
});

describe('gpt-oss-120b on Cerebras', () => {
  it("costs Cerebras' published rates in usage.cost", async () => {
    setup.upstream.enqueue(openAiChatStep({ text: 'Hello.', usage: USAGE }));
    const call = await postMessage(setup.gateway, messageBody(MODEL));
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect((setup.upstream.lastRequest().body as { model: string }).model).toBe('gpt-oss-120b');
    const usage = call.body.usage as { input_tokens: number; output_tokens: number; cost: number };
    expect([usage.input_tokens, usage.output_tokens]).toEqual([USAGE.input, USAGE.output]);
    expect(usage.cost).toBeCloseTo((USAGE.input * PRICE.input + USAGE.output * PRICE.output) / 1e6, 12);
  });

  it('GET /models lists those prices for the Cerebras endpoint', async () => {
    const response = await fetch(`${setup.gateway.baseUrl}/models/${MODEL}`, { headers: { authorization: `Bearer ${setup.gateway.api_key}` } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data?: unknown } & Record<string, unknown>;
    const model = (body.data ?? body) as { endpoints: { provider: string; pricing: Record<string, number> }[] };
    expect(model.endpoints.find((endpoint) => endpoint.provider === 'cerebras')?.pricing).toMatchObject(PRICE);
  });
});
