/**
 * Stream events as a client receives them. Adapters and the gateway's additions yield either an upstream's
 * event text or a typed object; the SSE writer serialises the latter. Tests that read events straight from an
 * adapter see them the same way through `wireEvent`.
 */
import { isRawSseEvent, type RawSseEvent, type SseEvent } from '#src/providers/provider-adapter.ts';

/** The event as the SSE writer puts it on the wire: an upstream's text as it is, a typed event as its JSON. */
export function wireEvent(event: SseEvent): RawSseEvent {
  return isRawSseEvent(event) ? event : { event: event.type, data: JSON.stringify(event) };
}
