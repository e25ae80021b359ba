import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UpstreamError } from '#src/errors.ts';
import { anthropicAdapter } from '#src/providers/anthropic/anthropic-adapter.ts';
import { readChunks, reply, startFakeAnthropic, type ByteSplit, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { attemptCall, collect, collectUntilError, expectedEvents, upstreamText } from './attempt-call.ts';

let fake: FakeUpstream;

beforeAll(async () => {
  fake = await startFakeAnthropic();
});
beforeEach(() => fake.clear());
afterAll(() => fake.close());

const streamRequest = (upstream: FakeUpstream) => attemptCall(upstream);

const STREAM_FIXTURES = [
  'anthropic-text',
  'anthropic-clear-thinking.1',
  'anthropic-json-tool.1',
  'anthropic-tool-no-args',
  'anthropic-web-search-tool.1',
  'anthropic-code-execution-20260120-prompt-cache.1',
  'anthropic-message-delta-input-tokens',
  'anthropic-refusal',
];

describe('anthropicAdapter.stream', () => {
  it.each(STREAM_FIXTURES)('forwards every event of %s in order, data byte for byte', async (fixture) => {
    fake.enqueue(reply.fixture(fixture));
    const { events, warnings } = await anthropicAdapter.stream(streamRequest(fake));

    expect(await collect(events)).toEqual(expectedEvents(readChunks<{ type: string }>('anthropic', fixture)));
    expect(warnings).toEqual([]);
  });

  const splits: [string, ByteSplit][] = [
    ['every byte', { every: 1 }],
    ['every 7 bytes', { every: 7 }],
    ['random cuts (seed 3)', { seed: 3, maxChunkBytes: 9 }],
    ['random cuts (seed 29)', { seed: 29, maxChunkBytes: 40 }],
  ];
  it.each(splits)('gives the same events when the thinking stream is cut at %s', async (_name, split) => {
    fake.enqueue(reply.fixture('anthropic-clear-thinking.1', { split }));
    const { events } = await anthropicAdapter.stream(streamRequest(fake));
    expect(await collect(events)).toEqual(expectedEvents(readChunks<{ type: string }>('anthropic', 'anthropic-clear-thinking.1')));
  });

  it('reads CRLF framing as well as LF', async () => {
    const crlf = await startFakeAnthropic({ lineEnding: '\r\n', replies: [reply.fixture('anthropic-text', { split: { seed: 5, maxChunkBytes: 3 } })] });
    try {
      const { events } = await anthropicAdapter.stream(attemptCall(crlf));
      expect(await collect(events)).toEqual(expectedEvents(readChunks<{ type: string }>('anthropic', 'anthropic-text')));
    } finally {
      await crlf.close();
    }
  });

  it('asks the upstream for a stream with the upstream model and no gateway fields', async () => {
    fake.enqueue(reply.fixture('anthropic-text'));
    const { events } = await anthropicAdapter.stream(streamRequest(fake));
    await collect(events);

    const received = fake.lastRequest();
    expect(received.streaming).toBe(true);
    expect(received.body).toEqual({ model: 'claude-sonnet-4-5', max_tokens: 256, messages: [{ role: 'user', content: 'Hello, how are you?' }], stream: true });
  });

  it.each([
    [529, 'overloaded', 529],
    [429, 'rate_limited', 429],
    [500, 'server_error', 502],
  ])('turns an in-stream error event for %i after two events into a retryable %s', async (status, kind, gatewayStatus) => {
    fake.enqueue(reply.fixture('anthropic-text', { streamError: { afterEvents: 2, status } }));
    const { events } = await anthropicAdapter.stream(streamRequest(fake));
    const outcome = await collectUntilError(events);

    expect(outcome.events.map((event) => event.event)).toEqual(['message_start', 'content_block_start']);
    expect(outcome.error).toBeInstanceOf(UpstreamError);
    expect(outcome.error).toMatchObject({ provider: 'anthropic', kind, status: gatewayStatus, retryable: true, fallbackEligible: true });
    expect((outcome.error as UpstreamError).rawBody).toContain('"type":"error"');
  });

  it('fails on the first read when the error event comes before any other, so the runner can still fail over', async () => {
    fake.enqueue(reply.fixture('anthropic-text', { streamError: { afterEvents: 0, status: 529 } }));
    const { events } = await anthropicAdapter.stream(streamRequest(fake));
    const outcome = await collectUntilError(events);
    expect(outcome.events).toEqual([]);
    expect(outcome.error).toMatchObject({ kind: 'overloaded', fallbackEligible: true });
  });

  it('keeps the in-stream error body out of the public message', async () => {
    fake.enqueue(reply.fixture('anthropic-text', { streamError: { afterEvents: 1, status: 529, message: 'secret internal cluster eu-7 is down' } }));
    const { events } = await anthropicAdapter.stream(streamRequest(fake));
    const { error } = await collectUntilError(events);
    expect((error as UpstreamError).publicMessage).toBe('Upstream anthropic failed: overloaded');
  });

  it.each([
    ['ends cleanly after some events', { afterEvents: 4, mode: 'end' as const }],
    ['ends cleanly inside an event', { afterEvents: 5, plusBytes: 20, mode: 'end' as const }],
    ['ends right before message_stop', { afterEvents: 11, mode: 'end' as const }],
    ['has its socket destroyed mid-event', { afterEvents: 3, plusBytes: 15, mode: 'destroy' as const }],
  ])('fails with a retryable error when the stream %s', async (_name, truncate) => {
    fake.enqueue(reply.fixture('anthropic-text', { truncate }));
    const { events } = await anthropicAdapter.stream(streamRequest(fake));
    const outcome = await collectUntilError(events);

    expect(outcome.events.length).toBeLessThanOrEqual(truncate.afterEvents);
    expect(outcome.events.map((event) => event.event)).not.toContain('message_stop');
    expect(outcome.error).toBeInstanceOf(UpstreamError);
    expect(outcome.error).toMatchObject({ provider: 'anthropic', retryable: true, fallbackEligible: true });
    expect(['malformed_response', 'connection']).toContain((outcome.error as UpstreamError).kind);
  });

  it('answers a non-stream content type with a malformed_response before any event', async () => {
    fake.enqueue(reply.fixture('anthropic-text.json'));
    const error = await anthropicAdapter.stream(streamRequest(fake)).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ kind: 'malformed_response', retryable: true });
    // Discarding the body must not raise an uncaught error a turn later (it would crash the gateway).
    await new Promise((resolve) => setTimeout(resolve, 20));
  });

  it('stops reading the upstream when the consumer stops early', async () => {
    fake.enqueue(reply.fixture('anthropic-text', { stallAfterEvents: 3 }));
    const { events } = await anthropicAdapter.stream(streamRequest(fake));
    const seen: string[] = [];
    for await (const event of events) {
      seen.push(upstreamText(event).event);
      if (seen.length === 2) break;
    }
    expect(seen).toEqual(['message_start', 'content_block_start']);
    // The stalled reply only ends when the connection closes: the next request proves the pool is not stuck.
    fake.enqueue(reply.fixture('anthropic-text'));
    const next = await anthropicAdapter.stream(streamRequest(fake));
    expect((await collect(next.events)).at(-1)?.event).toBe('message_stop');
  });
});
