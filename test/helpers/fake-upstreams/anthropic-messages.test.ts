import Anthropic from '@anthropic-ai/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readChunks, readFixture, reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { rejectionOf } from '#test/helpers/language-model-results.ts';

let fake: FakeUpstream;
let client: Anthropic;

beforeEach(async () => {
  fake = await startFakeAnthropic();
  client = new Anthropic({ baseURL: fake.baseURL, authToken: 'test-token', maxRetries: 0 });
});
afterEach(() => fake.close());

const request = { model: 'claude-sonnet-5-5', max_tokens: 64, messages: [{ role: 'user' as const, content: 'Hi' }] };

describe('fake Anthropic Messages API', () => {
  it('answers messages.create with the recorded body and records the request', async () => {
    fake.enqueue(reply.fixture('anthropic-text'));
    const message = await client.messages.create(request);

    expect(message).toEqual(readFixture('anthropic', 'anthropic-text'));
    const received = fake.lastRequest();
    expect(received).toMatchObject({ method: 'POST', path: '/v1/messages', operation: 'messages', streaming: false });
    expect(received.headers.authorization).toBe('Bearer test-token');
    expect(received.body).toEqual(request);
  });

  it('streams thinking with its signature in event:/data: framing for messages.stream', async () => {
    fake.enqueue(reply.fixture('anthropic-clear-thinking.1'));
    const stream = client.messages.stream(request);
    const eventTypes: string[] = [];
    stream.on('streamEvent', (event) => eventTypes.push(event.type));
    const message = await stream.finalMessage();

    const recorded = readChunks<{ type: string; delta?: { signature?: string } }>('anthropic', 'anthropic-clear-thinking.1');
    // The SDK drops `ping` itself; every other recorded event arrives, in order.
    expect(eventTypes).toEqual(recorded.map((event) => event.type).filter((type) => type !== 'ping'));
    const signature = recorded.find((event) => event.delta?.signature !== undefined)?.delta?.signature;
    expect(message.content[0]).toEqual({ type: 'thinking', thinking: 'The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185', signature });
    expect(message.content[1]).toMatchObject({ type: 'text', text: '925 ÷ 5 = 185' });
    expect(message.usage.output_tokens).toBe(53);
    expect(fake.lastRequest().streaming).toBe(true);
  });

  it('delivers a tool_use stream whose input JSON survives any byte split', async () => {
    fake.enqueue(reply.fixture('anthropic-json-tool.1', { split: { seed: 11, maxChunkBytes: 5 } }));
    const message = await client.messages.stream(request).finalMessage();

    expect(message.stop_reason).toBe('tool_use');
    expect(message.content[0]).toMatchObject({
      type: 'tool_use',
      name: 'json',
      input: { elements: [{ location: 'San Francisco', temperature: 58, condition: 'sunny' }] },
    });
  });

  it('streams a refusal with its stop details and keeps cache usage fields intact', async () => {
    fake.enqueue(reply.fixture('anthropic-refusal'), reply.fixture('anthropic-code-execution-20260120-prompt-cache.1'));
    const refusal = await client.messages.stream(request).finalMessage();
    expect(refusal.stop_reason).toBe('refusal');

    const cached = await client.messages.stream(request).finalMessage();
    expect(cached.usage).toMatchObject({ cache_creation_input_tokens: 3337, cache_read_input_tokens: 6289 });
  });

  it('answers count_tokens without using the script', async () => {
    const counted = await client.messages.countTokens({ model: request.model, messages: request.messages });
    expect(counted).toEqual({ input_tokens: 12 });
    expect(fake.lastRequest().operation).toBe('count_tokens');
    expect(fake.pendingReplies()).toBe(0);
  });

  it.each([
    [529, 'overloaded_error'],
    [429, 'rate_limit_error'],
    [500, 'api_error'],
    [400, 'invalid_request_error'],
  ])('answers status %i with an Anthropic %s body', async (status, type) => {
    fake.enqueue(reply.error(status));
    const error = await rejectionOf(client.messages.create(request));

    expect(error).toBeInstanceOf(Anthropic.APIError);
    const apiError = error as InstanceType<typeof Anthropic.APIError>;
    expect(apiError.status).toBe(status);
    expect(apiError.type).toBe(type);
    expect(apiError.requestID).toMatch(/^req_/);
  });

  it('sends an in-stream overloaded error event after some events', async () => {
    fake.enqueue(reply.fixture('anthropic-text', { streamError: { afterEvents: 3, status: 529 } }));
    const error = await rejectionOf(client.messages.stream(request).finalMessage());

    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).type).toBe('overloaded_error');
  });
});
