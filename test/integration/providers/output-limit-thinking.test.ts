/**
 * A translated vendor is sent `max_tokens` lowered to its endpoint's output limit; what depends on that limit
 * follows the limit actually sent. A thinking budget not below it is lowered with it, keeping the request's
 * share of thinking (Gemini's `thinkingBudget`, the effort an OpenAI-compatible vendor gets); before, Gemini
 * was sent a budget larger than its whole output and a compatible vendor the effort of the client's budget.
 * context-compression leaves room for the lowered limit, not the client's 32000 (Claude Code's ask of a model
 * it does not know), so a prompt that fits is sent whole; before, messages were removed it did not need to lose.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { geminiStep, openAiChatStep, reply, startFakeGemini, startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { WITH_METADATA, catalogYaml, metadataOf, postMessage } from '#test/integration/routing/routing-support.ts';

const OUTPUT_LIMIT = 8192;
// Claude Code's ask of a model it does not know, with a thinking budget of nearly all of it.
const USAGE = { input: 20, output: 5 };
const ASKED = { max_tokens: 32_000, thinking: { type: 'enabled', budget_tokens: 31_999 } };

let gemini: FakeUpstream;
let compat: FakeUpstream;
let gateway: TestGateway;

function model(slug: string, provider: string, contextLength: number): string {
  return [
    `  ${slug}:`,
    `    context_length: ${contextLength}`,
    '    capabilities: { tools: true, vision: true, pdf: true, thinking: true, caching: true, structured_output: true }',
    `    endpoints: [{ provider: ${provider}, model: ${slug.split('/')[1]}, pricing: { input: 1, output: 2 }, max_output_tokens: ${OUTPUT_LIMIT} }]`,
  ].join('\n');
}

beforeAll(async () => {
  [gemini, compat] = await Promise.all([startFakeGemini(), startFakeOpenAiChat()]);
  const providers = [
    `  gem: { family: google, display_name: "Gem Cloud", base_url: "${gemini.baseURL}", api_key: "gem-key-output-limit-0001" }`,
    `  compat: { family: openai-compatible, display_name: "Compat Cloud", base_url: "${compat.baseURL}", api_key: "sk-compat-output-limit-0001" }`,
  ];
  // test/window: 40,000 tokens of context; the client's 32000 would claim half of it, the endpoint's 8192 less.
  gateway = await startTestGateway({ catalogYaml: catalogYaml(providers, [model('test/gemini', 'gem', 1_000_000), model('test/compat', 'compat', 1_000_000), model('test/window', 'compat', 40_000)]) });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([gemini?.close(), compat?.close()]);
});
beforeEach(() => {
  gemini.clear();
  compat.clear();
});

const hello = [{ role: 'user', content: 'Think it over: is 8191 prime?' }];

describe('a thinking budget under a lowered output limit', () => {
  it('Gemini gets a thinkingBudget below the lowered maxOutputTokens, the request\'s share of thinking kept', async () => {
    gemini.enqueue(geminiStep({ text: 'It is.', usage: USAGE }).json);
    const call = await postMessage(gateway, { model: 'test/gemini', messages: hello, ...ASKED });

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const sent = gemini.lastRequest().body as { generationConfig: { maxOutputTokens: number; thinkingConfig?: { thinkingBudget?: number } } };
    expect(sent.generationConfig.maxOutputTokens).toBe(OUTPUT_LIMIT);
    // 31,999 of 32,000 is 8,191.7 of 8,192: rounded down, below the limit.
    expect(sent.generationConfig.thinkingConfig?.thinkingBudget).toBe(8191);
  });

  it('a budget already below the lowered limit is sent as it is', async () => {
    gemini.enqueue(geminiStep({ text: 'It is.', usage: USAGE }).json);
    const call = await postMessage(gateway, { model: 'test/gemini', messages: hello, max_tokens: 32_000, thinking: { type: 'enabled', budget_tokens: 4000 } });

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const sent = gemini.lastRequest().body as { generationConfig: { maxOutputTokens: number; thinkingConfig?: { thinkingBudget?: number } } };
    expect(sent.generationConfig).toMatchObject({ maxOutputTokens: OUTPUT_LIMIT, thinkingConfig: { thinkingBudget: 4000 } });
  });

  it('an OpenAI-compatible vendor gets the effort of the lowered budget', async () => {
    compat.enqueue(openAiChatStep({ text: 'It is.', usage: USAGE }).json);
    // 20,000 of 32,000 stands for high effort; lowered with the limit, 5,120 of 8,192 is medium.
    const call = await postMessage(gateway, { model: 'test/compat', messages: hello, max_tokens: 32_000, thinking: { type: 'enabled', budget_tokens: 20_000 } });

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(compat.lastRequest().body).toMatchObject({ max_tokens: OUTPUT_LIMIT, reasoning_effort: 'medium' });
  });
});

describe('context-compression under a lowered output limit', () => {
  it('leaves room for the max_tokens sent: a prompt that fits beside 8192 output tokens is sent whole', async () => {
    compat.enqueue(openAiChatStep({ text: 'Done.', usage: USAGE }).json);
    // About 25,000 tokens over six messages: over 40,000 - 20,000 (half the context, for 32000), under 40,000 - 8,192.
    const turn = (role: string, index: number) => ({ role, content: `${role}${index} ${'.'.repeat(16_660)}` });
    const messages = [turn('user', 0), turn('assistant', 1), turn('user', 2), turn('assistant', 3), turn('user', 4), turn('assistant', 5), { role: 'user', content: 'And now?' }];
    const call = await postMessage(gateway, { model: 'test/window', messages, max_tokens: 32_000, plugins: [{ id: 'context-compression' }] }, WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect((compat.lastRequest().body as { messages: unknown[] }).messages).toHaveLength(messages.length);
    expect((metadataOf(call) as unknown as { plugins: unknown[] }).plugins).toMatchObject([{ id: 'context-compression', messages_removed: 0 }]);
  });
});
