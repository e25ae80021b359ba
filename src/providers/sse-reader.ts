/**
 * Reads a server-sent event stream from an upstream body with a real SSE parser (eventsource-parser),
 * yielding each event as it completes, whatever the chunk boundaries.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { RawSseEvent } from '#src/providers/provider-adapter.ts';

/** Yields the events of an SSE byte stream. An event without a name is named `message`. */
export async function* readSseEvents(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<RawSseEvent> {
  const pending: RawSseEvent[] = [];
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      pending.push({ event: message.event ?? 'message', data: message.data });
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    while (pending.length > 0) yield pending.shift() as RawSseEvent;
  }
  parser.feed(decoder.decode());
  parser.reset({ consume: true });
  while (pending.length > 0) yield pending.shift() as RawSseEvent;
}
