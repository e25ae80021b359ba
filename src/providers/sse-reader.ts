/**
 * Reads a server-sent event stream from an upstream body at the byte level. The splitter cuts the bytes into
 * events at their blank lines (CR, LF or CRLF line ends, whatever the chunk boundaries) and reads each event's
 * name from its `event` field, following the SSE parsing rules for those two things only; every event keeps
 * its bytes exactly as they came, so a pass-through forwards them untouched. An event's data is read only when
 * someone asks for it (the few events the gateway amends): from where its one `data` line lies when the splitter
 * saw it (most streams end their lines with LF alone, and such a chunk is cut in one pass that notes it), else
 * with a full SSE parser (src/providers/upstream-sse-event.ts).
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 */
import type { RawSseEvent } from '#src/providers/provider-adapter.ts';
import { UpstreamSseEvent } from '#src/providers/upstream-sse-event.ts';
import { isDataFieldStart, isEventFieldStart, KNOWN_NAMES, knownNameAt, knownNameLength, viewOf } from '#src/providers/sse-known-fields.ts';

export { UpstreamSseEvent };

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const EVENT_FIELD = Buffer.from('event');
const DATA_FIELD = Buffer.from('data');
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const NOT_LOOKED_FOR = -2;

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
    // Looked for when first needed: a chunk read in one pass (below) never needs it.
    let nextLF = NOT_LOOKED_FOR;
    while (index < bytes.length) {
      if (nextCR !== -1 && nextCR < index) nextCR = bytes.indexOf(CR, index);
      // At an event's first byte with nothing of it read before and no CR in the rest: one pass of its own.
      if (nextCR === -1 && start === index && this.#parts.length === 0 && this.#atLineStart && (!this.#first || bytes.length - index >= BOM.length)) {
        start = this.#splitLf(bytes, index, events);
        break;
      }
      if (nextLF !== -1 && nextLF < index) nextLF = bytes.indexOf(LF, index);
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

  /**
   * Cuts the events of `bytes` from `from`, an event's first byte, where no CR follows: every line ends with an
   * LF, so an LF at a line's start is the blank line that ends an event. Each event's name and data line are
   * read in the same pass (only a data line is searched by `indexOf`; an event line is read byte by byte).
   * Returns where the event left incomplete starts (the chunk's length when none is).
   */
  #splitLf(bytes: Buffer, from: number, events: UpstreamSseEvent[]): number {
    const length = bytes.length;
    let start = from;
    if (this.#first) {
      this.#first = false;
      if (bytes[start] === BOM[0] && bytes[start + 1] === BOM[1] && bytes[start + 2] === BOM[2]) start += BOM.length;
    }
    let line = start;
    let name = '';
    let dataLines = 0;
    let dataFrom = -1;
    let dataTo = -1;
    const view = viewOf(bytes);
    while (line < length) {
      if (bytes[line] === LF) {
        const end = line + 1;
        // One data line, in an event that does not start as a byte-order mark would (whose full parse drops it
        // and reads the line after it as a field): its value is the data.
        const single = dataLines === 1 && bytes[start] !== BOM[0];
        if (dataLines > 0) events.push(new UpstreamSseEvent(name || 'message', bytes.subarray(start, end), single ? dataFrom - start : -1, single ? dataTo - start : -1));
        start = line = end;
        name = '';
        dataLines = 0;
        continue;
      }
      let end: number;
      if (isEventFieldStart(bytes, view, line)) {
        // The name is looked for among the known ones where it starts, which also finds the end of its line.
        const colon = line + EVENT_FIELD.length;
        const valueFrom = bytes[colon] === LF ? colon : bytes[colon + 1] === SPACE ? colon + 2 : colon + 1;
        const known = knownNameAt(bytes, view, valueFrom);
        if (known === -1) {
          end = bytes.indexOf(LF, colon);
          if (end !== -1) name = valueFrom < end ? bytes.toString('utf8', valueFrom, end) : '';
        } else {
          name = KNOWN_NAMES[known]!;
          end = valueFrom + knownNameLength(known);
        }
      } else if (isDataFieldStart(bytes, view, line)) {
        const colon = line + DATA_FIELD.length;
        end = bytes.indexOf(LF, colon);
        dataLines += 1;
        dataFrom = colon === end ? end : bytes[colon + 1] === SPACE ? colon + 2 : colon + 1;
        dataTo = end;
      } else end = bytes.indexOf(LF, line);
      if (end === -1) {
        this.#atLineStart = false;
        return start;
      }
      line = end + 1;
    }
    this.#atLineStart = true;
    return start;
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
