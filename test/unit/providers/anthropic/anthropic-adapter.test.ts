import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UpstreamError } from '#src/errors.ts';
import { anthropicAdapter } from '#src/providers/anthropic/anthropic-adapter.ts';
import { readFixture, readFixtureText, reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { PROVIDER_KEY, attemptCall, clientRequest } from './attempt-call.ts';

let fake: FakeUpstream;

beforeAll(async () => {
  fake = await startFakeAnthropic({ countTokens: 37 });
});
beforeEach(() => fake.clear());
afterAll(() => fake.close());

describe('anthropicAdapter.generate', () => {
  it.each([
    'anthropic-text',
    'anthropic-clear-thinking.1',
    'anthropic-json-tool.1',
    'anthropic-tool-no-args',
    'anthropic-web-search-tool.1',
    'anthropic-refusal',
    'anthropic-refusal-no-details',
  ])('returns the recorded message %s unchanged', async (fixture) => {
    fake.enqueue(reply.fixture(fixture));
    const { message, warnings } = await anthropicAdapter.generate(attemptCall(fake));

    expect(message).toEqual(readFixture('anthropic', fixture));
    expect(warnings).toEqual([]);
  });

  it('sends the client body with the upstream model, without gateway fields, with the key and Anthropic headers', async () => {
    fake.enqueue(reply.fixture('anthropic-text'));
    const request = clientRequest({ container: 'container_1', stop_sequences: ['END'], stream: false });
    await anthropicAdapter.generate(attemptCall(fake, { request, providerHeaders: { 'x-extra': 'preset' } }));

    const received = fake.lastRequest();
    expect(received).toMatchObject({ method: 'POST', path: '/v1/messages', streaming: false });
    expect(received.body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Hello, how are you?' }],
      container: 'container_1',
      stop_sequences: ['END'],
    });
    expect(received.headers).toMatchObject({
      'x-api-key': PROVIDER_KEY,
      'anthropic-version': '2023-06-01',
      'anthropic-beta': 'interleaved-thinking-2025-05-14',
      'content-type': 'application/json',
      'x-extra': 'preset',
    });
    expect(received.headers.authorization).toBeUndefined();
  });

  it('defaults anthropic-version, omits anthropic-beta when the client sent none and reads an object key', async () => {
    fake.enqueue(reply.fixture('anthropic-text'));
    await anthropicAdapter.generate(attemptCall(fake, { forwardHeaders: {}, key: { api_key: PROVIDER_KEY, region: 'us' } }));

    const { headers } = fake.lastRequest();
    expect(headers['anthropic-version']).toBe('2023-06-01');
    expect(headers['anthropic-beta']).toBeUndefined();
    expect(headers['x-api-key']).toBe(PROVIDER_KEY);
  });

  it('sends no x-api-key when the endpoint needs none', async () => {
    fake.enqueue(reply.fixture('anthropic-text'));
    await anthropicAdapter.generate(attemptCall(fake, { key: undefined }));
    expect(fake.lastRequest().headers['x-api-key']).toBeUndefined();
  });

  it('does not modify the request of the attempt', async () => {
    fake.enqueue(reply.fixture('anthropic-text'));
    const call = attemptCall(fake);
    const before = structuredClone(call.request);
    await anthropicAdapter.generate(call);
    expect(call.request).toEqual(before);
  });

  it.each([
    ['a JSON body that is not a message', reply.json({ hello: 'world' })],
    ['a body that is not JSON', reply.json('<html>gateway timeout</html>')],
    ['a JSON body cut short', reply.fixture('anthropic-text.json', { truncate: { afterEvents: 0, plusBytes: 40, mode: 'end' } })],
  ])('turns %s into a retryable malformed_response', async (_name, answer) => {
    fake.enqueue(answer);
    const error = await anthropicAdapter.generate(attemptCall(fake)).catch((thrown: unknown) => thrown);

    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ provider: 'anthropic', kind: 'malformed_response', retryable: true, fallbackEligible: true, status: 502 });
  });
});

describe('anthropicAdapter.countTokens', () => {
  it('posts the countable fields with the upstream model and returns the count', async () => {
    const request = { model: 'anthropic/claude-sonnet-4.5', messages: [{ role: 'user' as const, content: 'Hi' }], system: 'Short.', session_id: 's', provider: { order: ['anthropic'] } };
    const count = await anthropicAdapter.countTokens({ ...attemptCall(fake), request });

    expect(count).toEqual({ input_tokens: 37 });
    const received = fake.lastRequest();
    expect(received).toMatchObject({ path: '/v1/messages/count_tokens', operation: 'count_tokens' });
    expect(received.body).toEqual({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'Hi' }], system: 'Short.' });
    expect(received.headers['x-api-key']).toBe(PROVIDER_KEY);
  });
});

describe('the recorded bytes', () => {
  it('match the fixture file, so the whole-message comparison is against what the vendor sent', () => {
    expect(JSON.parse(readFixtureText('anthropic', 'anthropic-text.json'))).toEqual(readFixture('anthropic', 'anthropic-text'));
  });
});
