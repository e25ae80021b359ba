import type { MessageRequest } from '#src/api-types.ts';
import { isRawSseEvent, type AttemptCall, type RawSseEvent, type SseEvent } from '#src/providers/provider-adapter.ts';
import type { FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';

/** A provider key that the logger's patterns would not recognise, so only the adapter can keep it out of errors. */
export const PROVIDER_KEY = 'byok-secret-9f2c41d7e3a8';

/** The client's request as the gateway validated it, gateway fields included. */
export function clientRequest(extra: Record<string, unknown> = {}): MessageRequest {
  return {
    model: 'anthropic/claude-sonnet-4.5',
    max_tokens: 256,
    messages: [{ role: 'user', content: 'Hello, how are you?' }],
    fallbacks: [{ model: 'openai/gpt-5' }],
    provider: { order: ['anthropic'] },
    session_id: 'session-7',
    trace: { trace_id: 'trace-7' },
    user: 'user-7',
    cache_control: { type: 'ephemeral' },
    ...extra,
  } as MessageRequest;
}

/** An attempt on the fake upstream, built by hand as the runner would. */
export function attemptCall(fake: FakeUpstream, overrides: Partial<AttemptCall> = {}): AttemptCall {
  return {
    request: clientRequest(),
    provider: 'anthropic',
    family: 'anthropic',
    baseUrl: fake.url,
    upstreamModel: 'claude-sonnet-4-5',
    key: PROVIDER_KEY,
    forwardHeaders: { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'interleaved-thinking-2025-05-14' },
    signal: new AbortController().signal,
    ...overrides,
  };
}

/**
 * The passthrough forwards the upstream's events as they came: a typed (rebuilt) event, or one without its
 * upstream bytes, fails the test. Returns the event's name and data, as a client reads them.
 */
export function upstreamText(event: SseEvent): RawSseEvent {
  if (!isRawSseEvent(event)) throw new Error(`the passthrough rebuilt ${event.type} instead of forwarding its text`);
  if (!event.raw) throw new Error(`the passthrough lost the upstream bytes of ${event.event}`);
  return { event: event.event, data: event.data };
}

/** Reads a whole adapter stream. */
export async function collect(events: AsyncIterable<SseEvent>): Promise<RawSseEvent[]> {
  const collected: RawSseEvent[] = [];
  for await (const event of events) collected.push(upstreamText(event));
  return collected;
}

/** Reads an adapter stream until it fails, returning what arrived and the error. */
export async function collectUntilError(events: AsyncIterable<SseEvent>): Promise<{ events: RawSseEvent[]; error: unknown }> {
  const collected: RawSseEvent[] = [];
  try {
    for await (const event of events) collected.push(upstreamText(event));
  } catch (error) {
    return { events: collected, error };
  }
  throw new Error(`the stream ended without an error after ${collected.length} events`);
}

/** The events a recorded `.chunks.txt` should come through as: its `type` as the name, the line as the data. */
export function expectedEvents(chunks: readonly { type: string }[]): RawSseEvent[] {
  return chunks.map((chunk) => ({ event: chunk.type, data: JSON.stringify(chunk) }));
}
