import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { APICallError } from '@ai-sdk/provider';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readChunks, readFixture, reply, startFakeGemini, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { collectStreamParts, rejectionOf, finishPart, joinDeltas, partsOfType, userPrompt } from '#test/helpers/language-model-results.ts';

interface GeminiChunk {
  candidates?: { content?: { parts?: { text?: string; thought?: boolean }[] } }[];
  usageMetadata?: { promptTokenCount?: number; candidatesTokenCount?: number; thoughtsTokenCount?: number };
}

let fake: FakeUpstream;

beforeEach(async () => {
  fake = await startFakeGemini({ lineEnding: '\r\n' });
});
afterEach(() => fake.close());

function geminiModel() {
  return createGoogleGenerativeAI({ baseURL: fake.baseURL, apiKey: 'google-key' })('gemini-3-pro-preview');
}

describe('fake Gemini generateContent API', () => {
  it('answers doGenerate on :generateContent with the recorded response', async () => {
    fake.enqueue(reply.fixture('google-text'));
    const result = await geminiModel().doGenerate({ prompt: userPrompt('How many r?') });

    const recorded = readFixture<GeminiChunk>('google', 'google-text');
    const recordedText = recorded.candidates?.[0]?.content?.parts?.[0]?.text;
    expect(result.content).toMatchObject([{ type: 'text', text: recordedText }]);
    expect(result.usage.inputTokens.total).toBe(recorded.usageMetadata?.promptTokenCount);
    expect(result.usage.outputTokens.reasoning).toBe(recorded.usageMetadata?.thoughtsTokenCount);
    expect(fake.lastRequest()).toMatchObject({
      path: '/v1beta/models/gemini-3-pro-preview:generateContent',
      params: { model: 'gemini-3-pro-preview' },
      streaming: false,
    });
    expect(fake.lastRequest().headers['x-goog-api-key']).toBe('google-key');
  });

  it('streams data: lines on :streamGenerateContent?alt=sse', async () => {
    fake.enqueue(reply.fixture('google-text', { split: { every: 3 } }));
    const parts = await collectStreamParts(await geminiModel().doStream({ prompt: userPrompt('How many r?') }));

    const chunks = readChunks<GeminiChunk>('google', 'google-text');
    const recordedText = chunks.flatMap((chunk) => chunk.candidates?.[0]?.content?.parts?.map((part) => part.text ?? '') ?? []).join('');
    expect(joinDeltas(parts, 'text-delta')).toBe(recordedText);
    expect(finishPart(parts).usage.outputTokens.reasoning).toBe(185);
    expect(fake.lastRequest()).toMatchObject({ operation: 'streamGenerateContent', query: { alt: 'sse' }, streaming: true });
  });

  it('streams a function call with its thought signature', async () => {
    fake.enqueue(reply.fixture('google-tool-call'));
    const parts = await collectStreamParts(await geminiModel().doStream({ prompt: userPrompt('Weather?') }));

    const [toolCall] = partsOfType(parts, 'tool-call');
    expect(toolCall).toMatchObject({ toolName: 'weather', input: '{"location":"San Francisco"}' });
    expect(toolCall?.providerMetadata?.google).toHaveProperty('thoughtSignature');
    expect(finishPart(parts).finishReason.unified).toBe('tool-calls');
  });

  it('streams thought summaries as reasoning', async () => {
    fake.enqueue(reply.fixture('google-stream-no-args-tool-call'));
    const parts = await collectStreamParts(await geminiModel().doStream({ prompt: userPrompt('Plan') }));

    expect(joinDeltas(parts, 'reasoning-delta')).toContain('**Processing User Requests**');
    expect(partsOfType(parts, 'tool-call').map((part) => part.toolName)).toContain('read_theme');
  });

  it('answers 429 with the recorded RetryInfo body and 503 with a Google status body', async () => {
    fake.enqueue(reply.error(429, { fixture: 'google-429-retry-info' }), reply.error(503));
    const quota = await rejectionOf(geminiModel().doGenerate({ prompt: userPrompt('Hi') }));
    expect(APICallError.isInstance(quota)).toBe(true);
    expect(quota).toMatchObject({ statusCode: 429, isRetryable: true });
    expect((quota as APICallError).responseBody).toContain('RetryInfo');

    const unavailable = await rejectionOf(geminiModel().doGenerate({ prompt: userPrompt('Hi') }));
    expect(unavailable).toMatchObject({ statusCode: 503, message: 'The model is overloaded. Please try again later.' });
  });

  it('refuses a thinking level beside a budget, and a level on Gemini 2.5, as Google does', async () => {
    const both = { google: { thinkingConfig: { thinkingLevel: 'low', thinkingBudget: 2048 } } };
    const refused = await rejectionOf(geminiModel().doGenerate({ prompt: userPrompt('Hi'), providerOptions: both }));
    expect(refused).toMatchObject({ statusCode: 400, message: 'You can only set only one of thinking budget and thinking level.' });

    const model25 = createGoogleGenerativeAI({ baseURL: fake.baseURL, apiKey: 'google-key' })('gemini-2.5-flash');
    const level = { google: { thinkingConfig: { thinkingLevel: 'low' } } };
    expect(await rejectionOf(model25.doGenerate({ prompt: userPrompt('Hi'), providerOptions: level }))).toMatchObject({ statusCode: 400 });

    fake.enqueue(reply.fixture('google-text'));
    await geminiModel().doGenerate({ prompt: userPrompt('Hi'), providerOptions: level });
    expect(fake.lastRequest().body).toMatchObject({ generationConfig: { thinkingConfig: { thinkingLevel: 'low' } } });
  });

  it('refuses a level the model does not take, in Google\'s words: medium on 3 Pro, minimal on 3.1 Pro', async () => {
    const model = (id: string) => createGoogleGenerativeAI({ baseURL: fake.baseURL, apiKey: 'google-key' })(id);
    const at = (thinkingLevel: string) => ({ google: { thinkingConfig: { thinkingLevel } } });
    expect(await rejectionOf(model('gemini-3-pro-preview').doGenerate({ prompt: userPrompt('Hi'), providerOptions: at('medium') }))).toMatchObject({
      statusCode: 400,
      message: 'Thinking level MEDIUM is not supported for this model. Please retry with other thinking level.',
    });
    expect(await rejectionOf(model('gemini-3.1-pro-preview').doGenerate({ prompt: userPrompt('Hi'), providerOptions: at('minimal') }))).toMatchObject({ statusCode: 400 });

    fake.enqueue(reply.fixture('google-text'));
    await model('gemini-3.1-pro-preview').doGenerate({ prompt: userPrompt('Hi'), providerOptions: at('medium') });
    expect(fake.lastRequest().body).toMatchObject({ generationConfig: { thinkingConfig: { thinkingLevel: 'medium' } } });
  });
});
