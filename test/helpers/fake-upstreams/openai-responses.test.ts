import { createOpenAI } from '@ai-sdk/openai';
import { APICallError } from '@ai-sdk/provider';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readChunks, reply, startFakeOpenAiResponses, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { collectStreamParts, rejectionOf, finishPart, joinDeltas, partsOfType, userPrompt } from '#test/helpers/language-model-results.ts';

let fake: FakeUpstream;

beforeEach(async () => {
  fake = await startFakeOpenAiResponses();
});
afterEach(() => fake.close());

function responsesModel() {
  return createOpenAI({ baseURL: fake.baseURL, apiKey: 'sk-test' }).responses('gpt-5-mini');
}

describe('fake OpenAI Responses API', () => {
  it('answers doGenerate with reasoning and text from the recorded response', async () => {
    fake.enqueue(reply.fixture('openai-reasoning-encrypted-content.1'));
    const result = await responsesModel().doGenerate({ prompt: userPrompt('Compute') });

    expect(result.content.map((part) => part.type)).toEqual(['reasoning', 'text']);
    expect(result.content[1]).toMatchObject({ text: '12 + 7 = 19\n19 × 3 = 57\n57 × 10 = 570\n\nFinal result: 570' });
    expect(fake.lastRequest()).toMatchObject({ path: '/v1/responses', streaming: false });
  });

  it('streams event:/data: frames with reasoning summaries and function-call argument deltas', async () => {
    fake.enqueue(reply.fixture('openai-reasoning-encrypted-content.1', { split: { seed: 2, maxChunkBytes: 40 } }));
    const parts = await collectStreamParts(await responsesModel().doStream({ prompt: userPrompt('Compute') }));

    expect(joinDeltas(parts, 'reasoning-delta')).toContain('**Calculating step-by-step using calculator**');
    expect(partsOfType(parts, 'tool-call')).toEqual([
      expect.objectContaining({ toolName: 'calculator', input: '{"a":12,"b":7,"op":"add"}' }),
    ]);
    expect(finishPart(parts).finishReason.unified).toBe('tool-calls');
    expect(fake.lastRequest().body).toMatchObject({ stream: true });
  });

  it('streams text split over two message items', async () => {
    fake.enqueue(reply.fixture('openai-phase.1'));
    const parts = await collectStreamParts(await responsesModel().doStream({ prompt: userPrompt('News?') }));

    const chunks = readChunks<{ type: string; delta?: string }>('openai-responses', 'openai-phase.1');
    const recordedText = chunks.filter((chunk) => chunk.type === 'response.output_text.delta').map((chunk) => chunk.delta).join('');
    expect(joinDeltas(parts, 'text-delta')).toBe(recordedText);
    expect(finishPart(parts).finishReason.unified).toBe('stop');
  });

  it('replays a recorded in-stream error event, which the AI SDK raises from doStream before any output', async () => {
    fake.enqueue(reply.fixture('openai-error.1'));
    const error = await rejectionOf(responsesModel().doStream({ prompt: userPrompt('Hi') }));

    // @ai-sdk/openai peeks at the stream: an `error` event before any output rejects doStream itself.
    expect(APICallError.isInstance(error)).toBe(true);
    expect((error as APICallError).message).toContain('You exceeded your current quota');
  });

  it('sends an in-stream error event after output, which arrives as an error part', async () => {
    fake.enqueue(reply.fixture('openai-phase.1', { streamError: { afterEvents: 6, status: 500 } }));
    const parts = await collectStreamParts(await responsesModel().doStream({ prompt: userPrompt('News?') }));

    expect(joinDeltas(parts, 'text-delta')).toBe('Got it');
    expect(partsOfType(parts, 'error')).toHaveLength(1);
    expect(finishPart(parts).finishReason.unified).toBe('error');
  });

  it('answers a 500 with the OpenAI error body', async () => {
    fake.enqueue(reply.error(500));
    const error = await rejectionOf(responsesModel().doGenerate({ prompt: userPrompt('Hi') }));

    expect(APICallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ statusCode: 500, isRetryable: true });
    expect((error as APICallError).message).toContain('The server had an error');
  });
});
