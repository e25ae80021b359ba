/**
 * Reads a server-sent event stream from an upstream body at the byte level. The splitter cuts the bytes into
 * events at their blank lines (CR, LF or CRLF line ends, whatever the chunk boundaries) and reads each event's
 * name from its `event` field, following the SSE parsing rules for those two things only; every event keeps
 * its bytes exactly as they came, so a pass-through forwards them untouched. An event's data is parsed with a
 * full SSE parser (eventsource-parser) only when someone asks for it: the few events the gateway amends.
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 */
import { createParser } from 'eventsource-parser';
import type { RawSseEvent } from '#src/providers/provider-adapter.ts';

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const EVENT_FIELD = Buffer.from('event');
const DATA_FIELD = Buffer.from('data');
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

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

/** An upstream's event: its name, read at the byte level, and its bytes as they came, blank line included. */
export class UpstreamSseEvent implements RawSseEvent {
  readonly event: string;
  readonly raw: Buffer;
  #data: string | undefined;

  constructor(event: string, raw: Buffer) {
    this.event = event;
    this.raw = raw;
  }

  /** The event's data, parsed on first use. */
  get data(): string {
    this.#data ??= dataOf(this.raw);
    return this.#data;
  }
}

// Whether the line [start, end) is the field `name`: the name alone, or followed by a colon.
function isField(bytes: Buffer, start: number, end: number, name: Buffer): boolean {
  const after = start + name.length;
  if (after > end || (after < end && bytes[after] !== COLON)) return false;
  for (let offset = 0; offset < name.length; offset += 1) if (bytes[start + offset] !== name[offset]) return false;
  return true;
}

/**
 * The name of the event in `block` (one event's lines up to its blank line), or null when it has no `data`
 * field: such a block dispatches nothing (a comment, a lone `event:`). Unnamed events are `message`.
 */
function eventNameOf(block: Buffer): string | null {
  let name = '';
  let hasData = false;
  let start = 0;
  let nextLF = block.indexOf(LF);
  let nextCR = block.indexOf(CR);
  while (start < block.length) {
    if (nextLF !== -1 && nextLF < start) nextLF = block.indexOf(LF, start);
    if (nextCR !== -1 && nextCR < start) nextCR = block.indexOf(CR, start);
    const end = nextCR === -1 ? (nextLF === -1 ? block.length : nextLF) : nextLF === -1 ? nextCR : Math.min(nextCR, nextLF);
    if (isField(block, start, end, DATA_FIELD)) hasData = true;
    else if (isField(block, start, end, EVENT_FIELD)) {
      const valueStart = start + EVENT_FIELD.length + 1;
      const from = block[valueStart] === SPACE ? valueStart + 1 : valueStart;
      name = from < end ? block.toString('utf8', from, end) : '';
    }
    start = block[end] === CR && block[end + 1] === LF ? end + 2 : end + 1;
  }
  return hasData ? name || 'message' : null;
}

/**
 * Cuts an SSE byte stream into events as the bytes arrive. Every event's `raw` is the exact bytes from its
 * first line to its blank line; what precedes the first event (a byte-order mark) and blocks that dispatch
 * nothing are dropped, as a client would drop them, and so is an event the stream ends inside.
 */
export class SseEventSplitter {
  /** Bytes of the event in progress that came in earlier chunks. */
  #parts: Buffer[] = [];
  /** The next byte starts a line, so a line end there is the blank line that ends an event. */
  #atLineStart = true;
  /** The last byte was a CR line end: an LF right after it is the rest of a CRLF, not a blank line. */
  #pendingLF = false;
  /** An event is complete but for the LF that its final CR may still have coming (CRLF framing). */
  #held = false;
  #first = true;

  /** Consumes the next chunk; returns the events it completes. */
  push(chunk: Uint8Array | string): UpstreamSseEvent[] {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const events: UpstreamSseEvent[] = [];
    let start = 0;
    let index = 0;
    if (this.#pendingLF && bytes.length > 0) {
      this.#pendingLF = false;
      if (bytes[0] === LF) index = 1;
      if (this.#held) {
        this.#held = false;
        this.#complete(bytes.subarray(0, index), events);
        start = index;
      }
    }
    // Most streams end lines with LF alone; one scan of the chunk tells, and then CR is never looked for.
    let nextCR = bytes.indexOf(CR, index);
    let nextLF = bytes.indexOf(LF, index);
    while (index < bytes.length) {
      if (nextLF !== -1 && nextLF < index) nextLF = bytes.indexOf(LF, index);
      if (nextCR !== -1 && nextCR < index) nextCR = bytes.indexOf(CR, index);
      const end = nextCR === -1 ? nextLF : nextLF === -1 ? nextCR : Math.min(nextCR, nextLF);
      if (end === -1) {
        this.#atLineStart = false;
        break;
      }
      const blank = end === index && this.#atLineStart;
      index = end + 1;
      if (bytes[end] === CR) {
        if (index === bytes.length) this.#pendingLF = true;
        else if (bytes[index] === LF) index += 1;
      }
      this.#atLineStart = true;
      if (!blank) continue;
      // A stream framed with CRLF whose packet ends between the CR and the LF of the blank line: the LF is this
      // event's last byte, so the event waits for the next chunk (or the end of the stream) to take it along.
      if (this.#pendingLF && this.#framedWithCrlf(bytes.subarray(start, index))) {
        this.#held = true;
        break;
      }
      this.#complete(bytes.subarray(start, index), events);
      start = index;
    }
    if (start < bytes.length) this.#parts.push(bytes.subarray(start));
    return events;
  }

  /** At the end of the stream: the event still waiting for the LF of a CRLF, if any. */
  end(): UpstreamSseEvent[] {
    const events: UpstreamSseEvent[] = [];
    if (this.#held) this.#complete(Buffer.alloc(0), events);
    this.#held = false;
    this.#parts = [];
    return events;
  }

  // Only asked for an event whose blank line is a CR at the very end of a chunk.
  #framedWithCrlf(tail: Buffer): boolean {
    return Buffer.concat([...this.#parts, tail]).includes('\r\n');
  }

  #complete(tail: Buffer, events: UpstreamSseEvent[]): void {
    let block = this.#parts.length === 0 ? tail : Buffer.concat([...this.#parts, tail]);
    this.#parts = [];
    if (this.#first) {
      this.#first = false;
      if (block.subarray(0, BOM.length).equals(BOM)) block = block.subarray(BOM.length);
    }
    const name = eventNameOf(block);
    if (name !== null) events.push(new UpstreamSseEvent(name, block));
  }
}

/** Yields the events of an SSE byte stream with their data as text. An event without a name is named `message`. */
export async function* readSseEvents(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<RawSseEvent> {
  const splitter = new SseEventSplitter();
  for await (const chunk of body) {
    for (const event of splitter.push(chunk)) yield { event: event.event, data: event.data };
  }
  for (const event of splitter.end()) yield { event: event.event, data: event.data };
}
