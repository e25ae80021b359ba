/**
 * Each Gemini 3 model gets a `thinkingLevel` it accepts, over HTTP through the Anthropic SDK. Google refuses
 * `medium` on Gemini 3 Pro with a 400 (the fake refuses it too) although `@ai-sdk/google` sends it: an
 * effort or budget of medium failed there. Now a level the model does not take goes as the nearest it does
 * (ties upward: 3 Pro's medium is high), `xhigh` and `max` as its highest, and disabled thinking as its least
 * (no Gemini 3 Pro can stop thinking); the last three the AI SDK's own fallback already chose, and are
 * pinned here so the table keeps them.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { geminiStep, startFakeGemini, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicClient, catalogYaml } from '#test/integration/routing/routing-support.ts';

let gemini: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  gemini = await startFakeGemini();
  const providers = [`  gem: { family: google, display_name: "Gem Cloud", base_url: "${gemini.baseURL}", api_key: "gem-key-levels-0001" }`];
  const model = (upstream: string) =>
    [`  test/${upstream}:`, '    context_length: 1000000', '    capabilities: { thinking: true }', `    endpoints: [{ provider: gem, model: ${upstream}, pricing: { input: 2, output: 12 }, max_output_tokens: 65536 }]`].join('\n');
  gateway = await startTestGateway({ catalogYaml: catalogYaml(providers, ['gemini-3-pro-preview', 'gemini-3.1-pro-preview', 'gemini-3-flash-preview'].map(model)) });
});
afterAll(async () => {
  await gateway?.close();
  await gemini?.close();
});
beforeEach(() => gemini.clear());

type Sent = { generationConfig: { thinkingConfig?: Record<string, unknown> } };
const question = [{ role: 'user' as const, content: 'How many days in a week?' }];
const effort = (level: string) => ({ output_config: { effort: level } });

describe('the thinking levels each Gemini 3 model accepts', () => {
  it.each<[string, string, Record<string, unknown>, Record<string, unknown> | undefined]>([
    ['effort medium on 3 Pro: high (Google refuses medium there)', 'gemini-3-pro-preview', effort('medium'), { thinkingLevel: 'high' }],
    ['budget 10000 (medium) on 3 Pro: high', 'gemini-3-pro-preview', { thinking: { type: 'enabled', budget_tokens: 10_000 } }, { thinkingLevel: 'high', includeThoughts: true }],
    ['effort low on 3 Pro: low', 'gemini-3-pro-preview', effort('low'), { thinkingLevel: 'low' }],
    ['thinking disabled on 3 Pro: low, its least', 'gemini-3-pro-preview', { thinking: { type: 'disabled' } }, { thinkingLevel: 'low' }],
    ['effort medium on 3.1 Pro: medium', 'gemini-3.1-pro-preview', effort('medium'), { thinkingLevel: 'medium' }],
    ['effort xhigh on 3.1 Pro: high, its highest', 'gemini-3.1-pro-preview', effort('xhigh'), { thinkingLevel: 'high' }],
    ['effort max on 3 Flash: high, its highest', 'gemini-3-flash-preview', effort('max'), { thinkingLevel: 'high' }],
    ['thinking disabled on 3 Flash: minimal', 'gemini-3-flash-preview', { thinking: { type: 'disabled' } }, { thinkingLevel: 'minimal' }],
  ])('%s', async (_name, upstream, controls, thinkingConfig) => {
    gemini.enqueue(geminiStep({ text: 'Seven.', usage: { input: 20, output: 3, reasoning: 40 } }));
    const body = { model: `test/${upstream}`, max_tokens: 32_000, messages: question, ...controls } as unknown as Anthropic.MessageCreateParamsNonStreaming;
    const message = await anthropicClient(gateway).messages.create(body);

    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'Seven.' })]);
    expect((gemini.lastRequest().body as Sent).generationConfig.thinkingConfig).toEqual(thinkingConfig);
  });

  it('streams adaptive thinking at effort medium on 3 Pro as high', async () => {
    gemini.enqueue(geminiStep({ text: 'Seven.', usage: { input: 20, output: 3, reasoning: 40 } }));
    const body = { model: 'test/gemini-3-pro-preview', max_tokens: 8000, messages: question, thinking: { type: 'adaptive' }, ...effort('medium') } as unknown as Anthropic.MessageCreateParamsStreaming;
    const message = await anthropicClient(gateway).messages.stream(body).finalMessage();

    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'Seven.' })]);
    expect(gemini.lastRequest()).toMatchObject({ streaming: true });
    expect((gemini.lastRequest().body as Sent).generationConfig.thinkingConfig).toEqual({ thinkingLevel: 'high', includeThoughts: true });
  });
});
