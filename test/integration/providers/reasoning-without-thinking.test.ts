/**
 * Vendors that reason although the client did not enable `thinking` (DeepSeek's reasoner on its
 * OpenAI-compatible preset, OpenAI Responses with a reasoning summary): Anthropic never answers with thinking
 * blocks then, so the reasoning text is left out, in JSON and in streams, through the Anthropic SDK; its
 * tokens stay in the usage (billed as output). Replay material (OpenAI encrypted reasoning) still comes back
 * in an empty block. With thinking enabled the reasoning is shown. Before, the text came back unasked.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeOpenAiChat, startFakeOpenAiResponses, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicClient, catalogYaml } from '#test/integration/routing/routing-support.ts';

let deepseek: FakeUpstream;
let responses: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  [deepseek, responses] = await Promise.all([startFakeOpenAiChat(), startFakeOpenAiResponses()]);
  const providers = [`  deepseek: { base_url: "${deepseek.baseURL}", api_key: "sk-deepseek-unasked-0001" }`, `  openai: { base_url: "${responses.baseURL}", api_key: "sk-openai-unasked-0001" }`];
  const model = (slug: string, provider: string, upstream: string) =>
    [`  ${slug}:`, '    context_length: 128000', '    capabilities: { tools: true, thinking: true }', `    endpoints: [{ provider: ${provider}, model: ${upstream}, pricing: { input: 1, output: 2 } }]`].join('\n');
  gateway = await startTestGateway({ catalogYaml: catalogYaml(providers, [model('test/reasoner', 'deepseek', 'deepseek-reasoner'), model('test/gpt', 'openai', 'gpt-5-mini')]) });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([deepseek?.close(), responses?.close()]);
});
beforeEach(() => {
  deepseek.clear();
  responses.clear();
});

const question: Anthropic.MessageParam[] = [{ role: 'user', content: 'How many r are in strawberry?' }];

async function ask(model: string, stream: boolean, extra: Record<string, unknown> = {}): Promise<Anthropic.Message> {
  const body = { model, max_tokens: 2048, messages: question, ...extra } as unknown as Anthropic.MessageCreateParamsNonStreaming;
  const client = anthropicClient(gateway);
  return stream ? client.messages.stream(body).finalMessage() : client.messages.create(body);
}

describe('reasoning the client did not ask for', () => {
  it.each([false, true])('DeepSeek reasoner: no thinking block, its reasoning tokens still billed (stream: %s)', async (stream) => {
    deepseek.enqueue(reply.fixture('deepseek-reasoning', { vendor: 'deepseek-chat' }));
    const message = await ask('test/reasoner', stream);
    expect(message.content.map((block) => block.type)).toEqual(['text']);
    expect((message.content[0] as Anthropic.TextBlock).text).toMatch(/3|three/);
    // The fixture's completion_tokens (345) include its 315 reasoning tokens.
    if (!stream) expect(message.usage.output_tokens).toBe(345);
  });

  it.each([false, true])('DeepSeek reasoner with thinking enabled: the reasoning is shown (stream: %s)', async (stream) => {
    deepseek.enqueue(reply.fixture('deepseek-reasoning', { vendor: 'deepseek-chat' }));
    const message = await ask('test/reasoner', stream, { thinking: { type: 'enabled', budget_tokens: 1024 } });
    expect(message.content.map((block) => block.type)).toEqual(['thinking', 'text']);
    expect((message.content[0] as Anthropic.ThinkingBlock).thinking).toContain('s-t-r-a-w-b-e-r-r-y');
  });

  it.each([false, true])('OpenAI Responses: the encrypted reasoning comes back without its summary text (stream: %s)', async (stream) => {
    responses.enqueue(reply.fixture('openai-reasoning-encrypted-content.1'));
    const message = await ask('test/gpt', stream, { output_config: { effort: 'high' } });
    const thinking = message.content.filter((block): block is Anthropic.ThinkingBlock => block.type === 'thinking');
    expect(thinking.length).toBeGreaterThan(0);
    for (const block of thinking) expect(block).toMatchObject({ thinking: '', signature: expect.stringMatching(/^sbsig1_/) });
    expect(message.content.at(-1)?.type).not.toBe('thinking');
  });
});
