import { afterEach, describe, expect, it } from 'vitest';
import {
  readChunks,
  reply,
  startFakeAnthropic,
  startFakeGemini,
  startFakeOpenAiChat,
  startFakeOpenAiResponses,
  type FakeUpstream,
} from '#test/helpers/fake-upstreams/index.ts';

let fake: FakeUpstream | undefined;
afterEach(() => fake?.close());

async function streamedText(upstream: FakeUpstream, path: string): Promise<{ contentType: string | null; body: string }> {
  const response = await fetch(`${upstream.url}${path}`, { method: 'POST', body: JSON.stringify({ stream: true }) });
  return { contentType: response.headers.get('content-type'), body: await response.text() };
}

/** The exact bytes each SSE fake sends for a recording, spelled out so a framing change cannot go unnoticed. */
describe('stream framing, byte for byte', () => {
  it('Anthropic: event: <type> and data: per event, nothing after message_stop', async () => {
    fake = await startFakeAnthropic({ replies: [reply.fixture('anthropic-text')] });
    const chunks = readChunks<{ type: string }>('anthropic', 'anthropic-text');
    const { contentType, body } = await streamedText(fake, '/v1/messages');

    expect(contentType).toMatch(/^text\/event-stream/);
    expect(body).toBe(chunks.map((chunk) => `event: ${chunk.type}\ndata: ${JSON.stringify(chunk)}\n\n`).join(''));
  });

  it('OpenAI chat: data: per chunk, then data: [DONE]', async () => {
    fake = await startFakeOpenAiChat({ replies: [reply.fixture('groq-tool-call', { vendor: 'groq' })] });
    const chunks = readChunks('groq', 'groq-tool-call');
    const { body } = await streamedText(fake, '/openai/v1/chat/completions');

    expect(body).toBe(`${chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('')}data: [DONE]\n\n`);
  });

  it('OpenAI Responses: event: <type> and data: per event, no [DONE]', async () => {
    fake = await startFakeOpenAiResponses({ replies: [reply.fixture('openai-phase.1')] });
    const chunks = readChunks<{ type: string }>('openai-responses', 'openai-phase.1');
    const { body } = await streamedText(fake, '/v1/responses');

    expect(body).toBe(chunks.map((chunk) => `event: ${chunk.type}\ndata: ${JSON.stringify(chunk)}\n\n`).join(''));
  });

  it('Gemini: data: per chunk with the chosen line ending, no terminator', async () => {
    fake = await startFakeGemini({ lineEnding: '\r\n', replies: [reply.fixture('google-text')] });
    const chunks = readChunks('google', 'google-text');
    const { body } = await streamedText(fake, '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');

    expect(body).toBe(chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`).join(''));
  });

  it('Gemini: refuses a stream without alt=sse rather than guess the JSON-array form', async () => {
    fake = await startFakeGemini();
    const response = await fetch(`${fake.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent`, { method: 'POST', body: '{}' });

    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
  });
});
