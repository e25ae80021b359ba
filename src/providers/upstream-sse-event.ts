/**
 * One event of an upstream's server-sent event stream as src/providers/sse-reader.ts cuts it: its name and
 * its bytes as they came, its data read from those bytes only when someone asks (with a full SSE parser,
 * eventsource-parser, unless the splitter noted where its one `data` line lies), and its data parsed as JSON
 * once for all the readers that only look at it.
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 */
import { createParser } from 'eventsource-parser';
import type { RawSseEvent } from '#src/providers/provider-adapter.ts';

// One parser for every data read: a whole event is fed at once and dispatches before `feed` returns.
let parsedData = '';
const dataParser = createParser({
  onEvent(message) {
    parsedData = message.data;
  },
});

/** The data of one complete event's bytes, as an SSE client reads it (several `data` lines joined with \n). */
function dataOf(raw: Uint8Array): string {
  parsedData = '';
  dataParser.reset();
  dataParser.feed(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8'));
  return parsedData;
}

/**
 * An upstream's event: its name, read at the byte level, and its bytes as they came, blank line included.
 * When the splitter saw that the event has one `data` line, it passes where that line's value lies in `raw`,
 * and the data is those bytes as text: what a full parse of the event would give, without it.
 */
export class UpstreamSseEvent implements RawSseEvent {
  readonly event: string;
  readonly raw: Buffer;
  #data: string | undefined;
  readonly #dataFrom: number;
  readonly #dataTo: number;
  /** The data parsed for a reader that only looks (`peekPayload`), until one that amends takes it. */
  #payload: unknown;

  constructor(event: string, raw: Buffer, dataFrom = -1, dataTo = -1) {
    this.event = event;
    this.raw = raw;
    this.#dataFrom = dataFrom;
    this.#dataTo = dataTo;
  }

  /** The event's data, read on first use. */
  get data(): string {
    this.#data ??= this.#dataFrom === -1 ? dataOf(this.raw) : this.raw.toString('utf8', this.#dataFrom, this.#dataTo);
    return this.#data;
  }

  /**
   * The data parsed, for a reader that does not change it: one parse however many such readers look (the
   * passthrough, routing and the additions all read `message_start`, each was a full parse). Throws as
   * `JSON.parse` does.
   */
  peekPayload(): unknown {
    this.#payload ??= JSON.parse(this.data);
    return this.#payload;
  }

  /**
   * The data parsed, for a reader that may change it: the parse the peeks made, handed over and forgotten (so
   * no later reader sees the change), else a parse of its own.
   */
  takePayload(): unknown {
    const payload = this.#payload ?? JSON.parse(this.data);
    this.#payload = undefined;
    return payload;
  }
}
