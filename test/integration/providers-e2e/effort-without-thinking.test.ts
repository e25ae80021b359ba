/**
 * End to end through the real gateway with the official Anthropic SDK: `output_config.effort` without
 * `thinking` (what Claude Code sends non-Claude models) still sets the vendor's reasoning effort, but asks
 * for no thought summaries (Gemini `includeThoughts`, OpenAI Responses `reasoning.summary`), so the client
 * gets no `thinking` block, as from Anthropic. With thinking enabled or adaptive the summaries are asked for,
 * adaptive thinking without an effort included (before, OpenAI Responses was then asked for none). Claude on
 * Bedrock gets the effort as Anthropic's own `output_config.effort` and no `thinking` (before, the AI SDK's
 * portable effort switched Claude's adaptive thinking on, which the client did not ask for and paid for).
 */
import { describe, expect, it } from 'vitest';
import { bedrockStep, reply, startFakeBedrock, startFakeGemini, startFakeOpenAiResponses } from '#test/helpers/fake-upstreams/index.ts';
import { useE2eTarget } from '#test/integration/providers-e2e/e2e-target.ts';

const PRICING = '{ input: 1, output: 10 }';
const question = [{ role: 'user' as const, content: 'How many r are in strawberry?' }];

describe('Gemini, effort without thinking', () => {
  const e2e = useE2eTarget({
    startUpstream: startFakeGemini,
    providerYaml: (fake) => `  google: { base_url: "${fake.baseURL}", api_key: "AIzaSy-effort-gemini-0001" }`,
    model: { slug: 'e2e/gemini-effort', provider: 'google', upstreamModel: 'gemini-3-pro-preview', pricing: PRICING },
  });
  const sentThinkingConfig = () => (e2e.upstream.lastRequest()?.body as { generationConfig: { thinkingConfig?: unknown } }).generationConfig.thinkingConfig;

  it('sends the effort as the thinking level without includeThoughts; the answer has no thinking block', async () => {
    e2e.upstream.enqueue(reply.fixture('google-text'));
    const message = await e2e.client.messages.create({ model: 'e2e/gemini-effort', max_tokens: 1024, messages: question, output_config: { effort: 'high' } } as never);
    expect(sentThinkingConfig()).toEqual({ thinkingLevel: 'high' });
    expect(message.content.map((block) => block.type)).toEqual(['text']);
  });

  it('asks for thoughts when thinking is adaptive, with the effort as the level', async () => {
    e2e.upstream.enqueue(reply.fixture('google-text'));
    await e2e.client.messages.create({ model: 'e2e/gemini-effort', max_tokens: 1024, messages: question, thinking: { type: 'adaptive' }, output_config: { effort: 'high' } } as never);
    expect(sentThinkingConfig()).toEqual({ thinkingLevel: 'high', includeThoughts: true });
  });

  it('asks for thoughts when thinking is enabled, with the budget as the level it fits (Gemini 3 thinks at levels)', async () => {
    e2e.upstream.enqueue(reply.fixture('google-text'));
    await e2e.client.messages.create({ model: 'e2e/gemini-effort', max_tokens: 8000, messages: question, thinking: { type: 'enabled', budget_tokens: 2048 } });
    expect(sentThinkingConfig()).toEqual({ thinkingLevel: 'low', includeThoughts: true });
  });
});

describe('OpenAI Responses, effort without thinking', () => {
  const e2e = useE2eTarget({
    startUpstream: startFakeOpenAiResponses,
    providerYaml: (fake) => `  openai: { base_url: "${fake.baseURL}", api_key: "sk-effort-responses-0001" }`,
    model: { slug: 'e2e/gpt-effort', provider: 'openai', upstreamModel: 'gpt-5-mini', pricing: PRICING },
  });
  const sentReasoning = () => (e2e.upstream.lastRequest()?.body as { reasoning?: unknown }).reasoning;

  it('sends the effort without a reasoning summary; the answer has no thinking block', async () => {
    e2e.upstream.enqueue(reply.fixture('openai-phase.1'));
    const message = await e2e.client.messages.create({ model: 'e2e/gpt-effort', max_tokens: 2048, messages: question, output_config: { effort: 'high' } } as never);
    expect(sentReasoning()).toEqual({ effort: 'high' });
    expect(message.content.every((block) => block.type === 'text')).toBe(true);
  });

  it('asks for the summary when thinking is enabled', async () => {
    e2e.upstream.enqueue(reply.fixture('openai-reasoning-encrypted-content.1'));
    const message = await e2e.client.messages.create({ model: 'e2e/gpt-effort', max_tokens: 2048, messages: question, thinking: { type: 'enabled', budget_tokens: 1024 }, output_config: { effort: 'high' } } as never);
    expect(sentReasoning()).toEqual({ effort: 'high', summary: 'detailed' });
    expect(message.content[0]?.type).toBe('thinking');
  });

  it('asks for the summary when thinking is adaptive without an effort (the model keeps its own effort)', async () => {
    e2e.upstream.enqueue(reply.fixture('openai-reasoning-encrypted-content.1'));
    const message = await e2e.client.messages.create({ model: 'e2e/gpt-effort', max_tokens: 2048, messages: question, thinking: { type: 'adaptive' } } as never);
    expect(sentReasoning()).toEqual({ summary: 'detailed' });
    expect(message.content[0]?.type).toBe('thinking');
  });

  it('asks for nothing without thinking or effort', async () => {
    e2e.upstream.enqueue(reply.fixture('openai-phase.1'));
    await e2e.client.messages.create({ model: 'e2e/gpt-effort', max_tokens: 2048, messages: question });
    expect(sentReasoning()).toBeUndefined();
  });
});

describe('Claude on Bedrock, effort without thinking', () => {
  const e2e = useE2eTarget({
    startUpstream: startFakeBedrock,
    providerYaml: (fake) => `  bedrock: { base_url: "${fake.url}", api_key: "bedrock-effort-only-0001" }`,
    model: { slug: 'e2e/claude-effort', provider: 'bedrock', upstreamModel: '"us.anthropic.claude-sonnet-5-5"', pricing: '{ input: 3, output: 15 }' },
  });
  type Converse = { additionalModelRequestFields?: Record<string, unknown>; inferenceConfig?: { maxTokens?: number } };
  const sent = () => e2e.upstream.lastRequest()?.body as Converse;
  const answer = () => bedrockStep({ text: 'Three.', usage: { input: 20, output: 2 } });

  it.each([
    ['JSON', false],
    ['stream', true],
  ])('sends output_config.effort and no thinking (%s); the answer has no thinking block', async (_name, stream) => {
    e2e.upstream.enqueue(answer());
    const body = { model: 'e2e/claude-effort', max_tokens: 1024, messages: question, output_config: { effort: 'low' } } as never;
    const message = stream ? await e2e.client.messages.stream(body).finalMessage() : await e2e.client.messages.create(body);
    expect(sent().additionalModelRequestFields).toEqual({ output_config: { effort: 'low' } });
    // No thinking budget added on top of the client's limit either.
    expect(sent().inferenceConfig?.maxTokens).toBe(1024);
    expect(message.content.map((block) => block.type)).toEqual(['text']);
  });

  it('takes a system message\'s effort (Claude Code on the 5.5 models) the same way', async () => {
    e2e.upstream.enqueue(answer());
    const messages = [...question, { role: 'system', content: [], output_config: { effort: 'xhigh' } }];
    await e2e.client.messages.create({ model: 'e2e/claude-effort', max_tokens: 1024, messages } as never);
    expect(sent().additionalModelRequestFields).toEqual({ output_config: { effort: 'xhigh' } });
  });

  it('sends disabled thinking as Anthropic\'s own switch, beside the effort (before, neither reached Claude)', async () => {
    e2e.upstream.enqueue(answer());
    await e2e.client.messages.create({ model: 'e2e/claude-effort', max_tokens: 1024, messages: question, thinking: { type: 'disabled' }, output_config: { effort: 'low' } } as never);
    expect(sent().additionalModelRequestFields).toEqual({ thinking: { type: 'disabled' }, output_config: { effort: 'low' } });
  });

  it('keeps thinking on where the client asked for it, beside the effort', async () => {
    e2e.upstream.enqueue(answer());
    await e2e.client.messages.create({ model: 'e2e/claude-effort', max_tokens: 1024, messages: question, thinking: { type: 'adaptive' }, output_config: { effort: 'low' } } as never);
    expect(sent().additionalModelRequestFields).toEqual({ thinking: { type: 'adaptive' }, output_config: { effort: 'low' } });
  });
});
