/**
 * The AI SDK's Anthropic provider (`@ai-sdk/anthropic` with `generateText` / `streamText`) as a client of the
 * gateway, with its default settings. It sets `max_tokens` from the model id: a `claude-` id it does not know,
 * as every gateway slug is (`anthropic/claude-sonnet-4.5`, with its dot), gets 128000, plus the thinking
 * budget when thinking is on. Anthropic refuses a `max_tokens` above the model's output limit with a 400
 * (`max_tokens: 128000 > 64000, which is the maximum allowed number of output tokens for …`; the fake does
 * too), so every such call failed on the Anthropic passthrough, where a translated endpoint of the same model
 * was sent its own limit. The gateway now lowers it to the endpoint's `max_output_tokens` there as well, with a
 * thinking budget not below the limit.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, streamText } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicStep, reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';

// Anthropic's documented output limits of the two upstream models, which the catalog holds too.
const OUTPUT_LIMITS = { 'claude-sonnet-4-5': 64_000, 'claude-opus-4-5': 64_000 };
// What the AI SDK asks of a `claude-` model id it does not know.
const UNKNOWN_CLAUDE_MAX_TOKENS = 128_000;

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeAnthropic({ outputLimits: OUTPUT_LIMITS });
  gateway = await startTestGateway({ catalogYaml: `providers:\n  ollama: { enabled: false }\n  anthropic: { base_url: "${upstream.url}", api_key: "sk-ant-shared-ai-sdk-0001" }\n` });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

/** The AI SDK's Anthropic provider pointed at the gateway as its docs say: base URL and API key, nothing else. */
function gatewayModel(slug: string) {
  return createAnthropic({ baseURL: gateway.baseUrl, apiKey: gateway.api_key })(slug);
}

function sentBody(): { max_tokens?: number; thinking?: { type: string; budget_tokens?: number } } {
  return upstream.lastRequest().body as { max_tokens?: number; thinking?: { type: string; budget_tokens?: number } };
}

describe('the AI SDK Anthropic provider with default settings on a gateway slug', () => {
  beforeEach(() => upstream.clear());

  it('generateText answers, the upstream sent the endpoint limit instead of the 128000 the SDK asks', async () => {
    upstream.enqueue(anthropicStep({ text: 'Hello from Sonnet.', usage: { input: 12, output: 5 } }));
    const result = await generateText({ model: gatewayModel('anthropic/claude-sonnet-4.5'), prompt: 'Hello', maxRetries: 0, include: { requestBody: true } });

    expect(result.request.body).toMatchObject({ max_tokens: UNKNOWN_CLAUDE_MAX_TOKENS });
    expect(result.text).toBe('Hello from Sonnet.');
    expect(result.finishReason).toBe('stop');
    expect(sentBody().max_tokens).toBe(64_000);
  });

  it('streamText with a thinking budget keeps the budget when it is below the limit', async () => {
    upstream.enqueue(reply.fixture('anthropic-clear-thinking.1'));
    const result = streamText({
      model: gatewayModel('anthropic/claude-sonnet-4.5'),
      prompt: 'Think, then answer.',
      maxRetries: 0,
      providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 4096 } } },
    });

    expect(await result.text).not.toBe('');
    expect(await result.reasoningText).toBeTruthy();
    expect(await result.finishReason).toBe('stop');
    expect(sentBody()).toMatchObject({ max_tokens: 64_000, thinking: { type: 'enabled', budget_tokens: 4096 } });
  });

  it('a budget above the limit is lowered with it, keeping its share, below max_tokens as Anthropic requires', async () => {
    upstream.enqueue(anthropicStep({ text: 'Opus answers.', usage: { input: 12, output: 5 } }));
    const budget = 80_000;
    const result = await generateText({
      model: gatewayModel('anthropic/claude-opus-4.5'),
      prompt: 'Think hard.',
      maxRetries: 0,
      include: { requestBody: true },
      providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: budget } } },
    });

    const asked = UNKNOWN_CLAUDE_MAX_TOKENS + budget;
    expect(result.request.body).toMatchObject({ max_tokens: asked, thinking: { budget_tokens: budget } });
    expect(result.text).toBe('Opus answers.');
    expect(sentBody()).toMatchObject({ max_tokens: 64_000, thinking: { type: 'enabled', budget_tokens: Math.floor((budget * 64_000) / asked) } });
  });

  it('an explicit maxOutputTokens within the limit is sent as it is', async () => {
    upstream.enqueue(anthropicStep({ text: 'Short.', usage: { input: 12, output: 2 } }));
    const result = await generateText({ model: gatewayModel('anthropic/claude-sonnet-4.5'), prompt: 'Hello', maxOutputTokens: 300, maxRetries: 0 });

    expect(result.text).toBe('Short.');
    expect(sentBody().max_tokens).toBe(300);
  });
});
