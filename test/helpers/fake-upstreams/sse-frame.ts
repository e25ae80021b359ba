/** Line ending used between SSE fields; every conforming parser accepts both. */
export type SseLineEnding = '\n' | '\r\n';

/**
 * Encodes one server-sent event: an optional `event:` line, one `data:` line (JSON or a literal such as
 * `[DONE]`), then a blank line.
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 */
export function encodeSseFrame({
  event,
  data,
  lineEnding = '\n',
}: {
  event?: string;
  data: unknown;
  lineEnding?: SseLineEnding;
}): Buffer {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  const eventLine = event === undefined ? '' : `event: ${event}${lineEnding}`;
  return Buffer.from(`${eventLine}data: ${payload}${lineEnding}${lineEnding}`, 'utf8');
}

/** The `type` field of an event payload, which Anthropic and OpenAI Responses repeat as the SSE event name. */
export function eventTypeOf(payload: unknown): string {
  if (typeof payload === 'object' && payload !== null && 'type' in payload && typeof payload.type === 'string') {
    return payload.type;
  }
  throw new TypeError(`stream event payload has no string "type": ${JSON.stringify(payload)}`);
}
