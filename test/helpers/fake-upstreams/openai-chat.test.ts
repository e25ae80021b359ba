import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError } from '@ai-sdk/provider';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readChunks, readFixture, reply, startFakeOpenAiChat, type FakeUpstream, type FixtureVendor } from '#test/helpers/fake-upstreams/index.ts';
import { collectStreamParts, rejectionOf, finishPart, joinDeltas, partsOfType, userPrompt } from '#test/helpers/language-model-results.ts';

interface ChatChunk {
  choices: { delta: { content?: string | null } }[];
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
}
interface ChatCompletion {
  choices: { message: { content: string } }[];
  usage: { prompt_tokens: number; completion_tokens: number };
}

let fake: FakeUpstream;

beforeEach(async () => {
  fake = await startFakeOpenAiChat();
});
afterEach(() => fake.close());

function openAiChatModel() {
  return createOpenAI({ baseURL: fake.baseURL, apiKey: 'sk-test' }).chat('gpt-4.1-nano');
}

describe('fake OpenAI Chat Completions API', () => {
  it('answers doGenerate with the recorded completion', async () => {
    fake.enqueue(reply.fixture('openai-text'));
    const result = await openAiChatModel().doGenerate({ prompt: userPrompt('Hi') });

    const recorded = readFixture<ChatCompletion>('openai-chat', 'openai-text');
    expect(result.content).toEqual([{ type: 'text', text: recorded.choices[0]?.message.content }]);
    expect(result.usage.inputTokens.total).toBe(recorded.usage.prompt_tokens);
    expect(result.usage.outputTokens.total).toBe(recorded.usage.completion_tokens);
    expect(fake.lastRequest()).toMatchObject({ path: '/v1/chat/completions', streaming: false });
    expect(fake.lastRequest().headers.authorization).toBe('Bearer sk-test');
  });

  it('streams data: lines ending in [DONE] that doStream reassembles', async () => {
    fake.enqueue(reply.fixture('openai-text', { split: { seed: 5, maxChunkBytes: 64 } }));
    const parts = await collectStreamParts(await openAiChatModel().doStream({ prompt: userPrompt('Hi') }));

    const chunks = readChunks<ChatChunk>('openai-chat', 'openai-text');
    const expectedText = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(joinDeltas(parts, 'text-delta')).toBe(expectedText);
    const finish = finishPart(parts);
    expect(finish.finishReason.unified).toBe('stop');
    expect(finish.usage.outputTokens.total).toBe(chunks.at(-1)?.usage?.completion_tokens);
    expect(fake.lastRequest().body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it.each<[FixtureVendor, string, string]>([
    ['xai', 'xai-tool-call', '{"location":"San Francisco"}'],
    ['groq', 'groq-tool-call', '{}'],
    ['mistral', 'mistral-tool-call', '{"location": "San Francisco"}'],
    ['deepseek-chat', 'deepseek-tool-call', '{"location": "San Francisco"}'],
  ])('replays the %s tool-call stream to the OpenAI-compatible provider', async (vendor, name, input) => {
    fake.enqueue(reply.fixture(name, { vendor }));
    const model = createOpenAICompatible({ name: vendor, baseURL: fake.baseURL, apiKey: 'key' }).chatModel('m');
    const parts = await collectStreamParts(await model.doStream({ prompt: userPrompt('Weather?') }));

    const [toolCall] = partsOfType(parts, 'tool-call');
    expect(toolCall).toMatchObject({ toolName: expect.any(String), input });
    expect(finishPart(parts).finishReason.unified).toBe('tool-calls');
  });

  it('replays a vendor tool-call body to doGenerate, reasoning included', async () => {
    fake.enqueue(reply.fixture('xai-tool-call.json', { vendor: 'xai' }));
    const model = createOpenAICompatible({ name: 'xai', baseURL: fake.baseURL, apiKey: 'key' }).chatModel('grok-3-mini');
    const result = await model.doGenerate({ prompt: userPrompt('Weather?') });

    expect(result.content.map((part) => part.type)).toEqual(['reasoning', 'tool-call']);
    expect(result.content[1]).toMatchObject({ toolName: 'weather', input: '{"location":"San Francisco"}' });
    expect(result.usage.inputTokens.cacheRead).toBe(244);
  });

  it('answers an error status with the OpenAI error body', async () => {
    fake.enqueue(reply.error(429), reply.fixture('reasoning-model-legacy-parameter-error.json', { status: 400 }));
    const rateLimited = await rejectionOf(openAiChatModel().doGenerate({ prompt: userPrompt('Hi') }));
    expect(APICallError.isInstance(rateLimited)).toBe(true);
    expect(rateLimited).toMatchObject({ statusCode: 429, isRetryable: true });
    expect((rateLimited as APICallError).responseBody).toContain('rate_limit_exceeded');

    const invalid = await rejectionOf(openAiChatModel().doGenerate({ prompt: userPrompt('Hi') }));
    expect(invalid).toMatchObject({ statusCode: 400, isRetryable: false });
    expect((invalid as APICallError).message).toContain("'max_tokens' is not supported");
  });
});

describe('fake DeepSeek thinking mode', () => {
  const body = (messages: unknown[], thinking?: unknown) => ({ model: 'deepseek-reasoner', messages, ...(thinking ? { thinking } : {}) });
  const post = (upstream: FakeUpstream, payload: unknown) =>
    fetch(`${upstream.baseURL}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sk-ds' }, body: JSON.stringify(payload) });
  const toolTurn = [
    { role: 'user', content: 'Weather?' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: 'Sunny' },
  ];

  it('refuses a tool-calling turn without reasoning_content, as DeepSeek does, unless thinking is disabled', async () => {
    const deepseek = await startFakeOpenAiChat({ deepseekThinking: true });
    try {
      const refused = await post(deepseek, body(toolTurn));
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toBe('The `reasoning_content` in the thinking mode must be passed back to the API.');

      deepseek.enqueue(reply.fixture('openai-text'), reply.fixture('openai-text'));
      expect((await post(deepseek, body(toolTurn, { type: 'disabled' }))).status).toBe(200);
      const replayed = toolTurn.map((message) => (message.role === 'assistant' ? { ...message, reasoning_content: '' } : message));
      expect((await post(deepseek, body(replayed))).status).toBe(200);
    } finally {
      await deepseek.close();
    }
  });
});
