import Anthropic from '@anthropic-ai/sdk';
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { afterEach, describe, expect, it } from 'vitest';
import {
  readChunks,
  readFixtureText,
  reply,
  startFakeAnthropic,
  startFakeBedrock,
  startFakeOpenAiChat,
  type FakeUpstream,
} from '#test/helpers/fake-upstreams/index.ts';
import { collectStreamParts, rejectionOf, userPrompt } from '#test/helpers/language-model-results.ts';

const request = { model: 'claude-sonnet-5-5', max_tokens: 64, messages: [{ role: 'user' as const, content: 'Hi' }] };
const started: FakeUpstream[] = [];

async function anthropicWith(...replies: Parameters<FakeUpstream['enqueue']>): Promise<{ fake: FakeUpstream; client: Anthropic }> {
  const fake = await startFakeAnthropic({ replies });
  started.push(fake);
  return { fake, client: new Anthropic({ baseURL: fake.baseURL, authToken: 'token', maxRetries: 0, timeout: 2_000 }) };
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((fake) => fake.close()));
});

describe('fake upstream faults', () => {
  it('resets the connection before answering', async () => {
    const { client } = await anthropicWith(reply.reset());
    await expect(client.messages.create(request)).rejects.toBeInstanceOf(Anthropic.APIConnectionError);
  });

  it('delays the headers past a client timeout', async () => {
    const { client } = await anthropicWith(reply.fixture('anthropic-text', { delayMs: 5_000 }));
    const startedAt = Date.now();
    await expect(client.messages.create(request, { timeout: 100 })).rejects.toBeInstanceOf(Anthropic.APIConnectionTimeoutError);
    expect(Date.now() - startedAt).toBeLessThan(2_000);
  });

  it('holds a reply until the test lets it go', async () => {
    let release = (): void => undefined;
    const until = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { fake, client } = await anthropicWith(reply.fixture('anthropic-text', { until }));
    let answered = false;
    const answer = client.messages.create(request).then((message) => {
      answered = true;
      return message;
    });
    await expect.poll(() => fake.requests.length).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answered).toBe(false);
    release();
    expect((await answer).type).toBe('message');
  });

  it('cuts a JSON body short by destroying the socket', async () => {
    const { client } = await anthropicWith(reply.fixture('anthropic-text', { truncate: { afterEvents: 0, plusBytes: 40, mode: 'destroy' } }));
    await expect(client.messages.create(request)).rejects.toThrow();
  });

  it('destroys the socket in the middle of an SSE frame', async () => {
    const { client } = await anthropicWith(reply.fixture('anthropic-text', { truncate: { afterEvents: 4, plusBytes: 20, mode: 'destroy' } }));
    const stream = client.messages.stream(request);
    const texts: string[] = [];
    stream.on('text', (text) => texts.push(text));
    await expect(stream.finalMessage()).rejects.toThrow();
    expect(texts).toEqual(['Hello']);
  });

  it('ends an Anthropic stream cleanly before message_stop', async () => {
    const { client } = await anthropicWith(reply.fixture('anthropic-text', { truncate: { afterEvents: 4 } }));
    await expect(client.messages.stream(request).finalMessage()).rejects.toThrow('stream ended without producing a Message');
  });

  it('ends a Chat Completions stream cleanly after N events, without [DONE]', async () => {
    const fake = await startFakeOpenAiChat({ replies: [reply.fixture('mistral-text', { vendor: 'mistral', truncate: { afterEvents: 3 } })] });
    started.push(fake);
    const response = await fetch(`${fake.baseURL}/chat/completions`, { method: 'POST', body: JSON.stringify({ stream: true }) });
    const body = await response.text();

    const expected = readChunks('mistral', 'mistral-text').slice(0, 3).map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('');
    expect(body).toBe(expected);
  });

  it('stalls after N events until the client gives up', async () => {
    const { fake } = await anthropicWith(reply.fixture('anthropic-text', { stallAfterEvents: 2 }));
    const response = await fetch(`${fake.baseURL}/v1/messages`, {
      method: 'POST',
      body: JSON.stringify({ ...request, stream: true }),
      signal: AbortSignal.timeout(300),
    });
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow(/aborted|timeout/i);
  });

  it('leaves a partial Bedrock event-stream message at the end, which the AI SDK reports', async () => {
    const fake = await startFakeBedrock({ replies: [reply.fixture('amazon-bedrock-text', { truncate: { afterEvents: 5, plusBytes: 30 } })] });
    started.push(fake);
    const model = createAmazonBedrock({ baseURL: fake.baseURL, region: 'us-east-1', apiKey: 'key' })('amazon.nova-pro-v1:0');
    const result = await model.doStream({ prompt: userPrompt('Hi') });

    // The decoder's flush throws, so reading the stream rejects rather than yielding an error part.
    await expect(collectStreamParts(result)).rejects.toThrow('Incomplete Amazon Bedrock event-stream frame: 30 buffered bytes');
  });

  it('answers 501 in the vendor shape when the script is used up, and 404 for an unknown path', async () => {
    const { fake, client } = await anthropicWith();
    const error = await rejectionOf(client.messages.create(request));
    expect(error).toMatchObject({ status: 501, type: 'api_error' });
    expect((error as InstanceType<typeof Anthropic.APIError>).message).toContain('no scripted reply left');

    const unknown = await fetch(`${fake.url}/v1/complete`, { method: 'POST', body: '{}' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
  });

  it('records the query string and sends recorded JSON bytes unchanged', async () => {
    const { fake } = await anthropicWith(reply.fixture('anthropic-text.json'));
    const response = await fetch(`${fake.baseURL}/v1/messages?beta=true`, { method: 'POST', body: JSON.stringify(request) });

    expect(await response.text()).toBe(readFixtureText('anthropic', 'anthropic-text.json'));
    expect(fake.lastRequest()).toMatchObject({ query: { beta: 'true' }, body: request, rawBody: JSON.stringify(request) });
  });
});
