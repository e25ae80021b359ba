/**
 * Streams over HTTP: a failure before the first byte reaches the client is still a failover (529, reset, a
 * stream that ends before its first event); after the first byte, a failure arrives as an in-band `error`
 * event and the stream closes cleanly: no other provider is called, and the Anthropic SDK surfaces the error
 * instead of hanging.
 */
import { describe, expect, it } from 'vitest';
import { reply, type FakeReply } from '#test/helpers/fake-upstreams/index.ts';
import {
  ALPHA_FIRST,
  anthropicClient,
  useAlphaBetaGateway,
  eventPayload,
  messageBody,
  streamMessage,
  upstreamModelOf,
  WITH_METADATA,
  type RoutingMetadata,
} from './routing-support.ts';

const setup = useAlphaBetaGateway();

const FIXTURE_TEXT = "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?";

function textOf(events: { event: string; data: string }[]): string {
  return events
    .filter((event) => event.event === 'content_block_delta')
    .map((event) => (JSON.parse(event.data) as { delta: { text?: string } }).delta.text ?? '')
    .join('');
}

describe('failover before the first byte', () => {
  const failures: [string, FakeReply, string][] = [
    ['a 529', reply.error(529), 'overloaded'],
    ['a connection reset', reply.reset(), 'connection'],
    ['a stream that ends before its first event', reply.fixture('anthropic-text', { truncate: { afterEvents: 0 } }), 'malformed_response'],
  ];

  it.each(failures)('the first provider answers %s, the second streams the answer', async (_label, failure, kind) => {
    setup.alpha.enqueue(failure);
    setup.beta.enqueue(reply.fixture('anthropic-text', { chunkDelayMs: 2 }));
    const call = await streamMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST), WITH_METADATA);

    expect(call.status).toBe(200);
    expect(call.headers.get('content-type')).toContain('text/event-stream');
    expect(call.events.map((event) => event.event)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      ...Array(6).fill('content_block_delta'),
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(textOf(call.events)).toBe(FIXTURE_TEXT);
    expect((eventPayload(call, 'message_start').message as { model: string; provider: string })).toMatchObject({ model: 'test/primary', provider: 'Beta Cloud' });
    expect(setup.alpha.requests).toHaveLength(1);
    expect(upstreamModelOf(setup.beta.lastRequest())).toBe('up-primary-beta');
    const metadata = eventPayload(call, 'message_stop').gateway_metadata as RoutingMetadata;
    expect(metadata.attempts.map(({ provider, status }) => [provider, status])).toEqual([
      ['Alpha Cloud', kind],
      ['Beta Cloud', 'success'],
    ]);
  });

  it('through the Anthropic SDK: the stream completes with the second provider', async () => {
    setup.alpha.enqueue(reply.error(529));
    setup.beta.enqueue(reply.fixture('anthropic-text'));
    const stream = anthropicClient(setup.gateway).messages.stream({ model: 'test/primary', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }], ...ALPHA_FIRST } as never);
    const message = await stream.finalMessage();

    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: FIXTURE_TEXT })]);
    expect(message.model).toBe('test/primary');
  });
});

describe('a failure after the first byte', () => {
  it('an upstream in-stream error becomes an in-band error event; no failover, the stream ends', async () => {
    setup.alpha.enqueue(reply.fixture('anthropic-text', { streamError: { afterEvents: 4, status: 529 } }));
    setup.beta.enqueue(reply.fixture('anthropic-text'));
    const call = await streamMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST));

    expect(call.status).toBe(200);
    expect(call.events.map((event) => event.event)).toEqual(['message_start', 'content_block_start', 'ping', 'content_block_delta', 'error']);
    expect(eventPayload(call, 'error')).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
    expect(setup.beta.requests).toHaveLength(0);
  });

  it.each<[string, 'end' | 'destroy']>([
    ['the upstream closes the stream early', 'end'],
    ['the upstream connection breaks mid-event', 'destroy'],
  ])('%s: the client gets an error event after what arrived, then a clean end', async (_label, mode) => {
    setup.alpha.enqueue(reply.fixture('anthropic-text', { truncate: { afterEvents: 5, plusBytes: 12, mode } }));
    setup.beta.enqueue(reply.fixture('anthropic-text'));
    const call = await streamMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST));

    expect(call.status).toBe(200);
    const names = call.events.map((event) => event.event);
    expect(names.slice(0, 5)).toEqual(['message_start', 'content_block_start', 'ping', 'content_block_delta', 'content_block_delta']);
    expect(names.at(-1)).toBe('error');
    expect(names).not.toContain('message_stop');
    expect(setup.beta.requests).toHaveLength(0);
  });

  it('the Anthropic SDK surfaces the in-band error and does not hang', async () => {
    setup.alpha.enqueue(reply.fixture('anthropic-text', { streamError: { afterEvents: 4, status: 529, message: 'Overloaded' } }));
    const stream = anthropicClient(setup.gateway).messages.stream({ model: 'test/primary', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }], ...ALPHA_FIRST } as never);
    const texts: string[] = [];
    stream.on('text', (text) => texts.push(text));
    const started = performance.now();

    await expect(stream.finalMessage()).rejects.toThrow(/overloaded/i);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(texts.join('')).toBe('Hello');
    expect(setup.beta.requests).toHaveLength(0);
  });
});
