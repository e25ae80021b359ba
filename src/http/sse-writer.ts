/**
 * Writes Anthropic-format server-sent events to a client response: one helper, so framing, serialisation,
 * headers and back-pressure are handled in one place. An upstream's event goes out as the bytes it came in;
 * an event the gateway built or amended is serialised here, once. Nothing is held back past the current turn
 * of the event loop, and what is ready within one turn leaves in one write, as one chunk: the events of one
 * upstream packet together (as a pass-through proxy writes each upstream chunk once), the status line and
 * headers with the first of them, the last event with the end of the body. Each extra write is one more
 * system call here and one more wake-up and read for the client.
 */
import type { Response } from 'express';
import type { SseEvent } from '#src/providers/provider-adapter.ts';

/** A stream of server-sent events to one client. */
export interface SseWriter {
  /** Sets the status line and headers, which leave with the first event; call once, before it. */
  open(headers: Record<string, string>): void;
  /**
   * Queues one event for this turn's write. Returns a promise only when the client reads slower than we
   * write: wait for it before the next event.
   */
  write(event: SseEvent): Promise<void> | undefined;
  /**
   * Holds what is written until `release`, for a caller that writes a run of events in one synchronous pass and
   * says when it is about to wait: the batch then needs no turn of its own scheduled per run it ends with.
   */
  hold(): void;
  /** Releases what is held: it leaves at the end of this turn, with whatever else is written in it. */
  release(): void;
  /** Ends the response, writing `last` (the stream's final event) in the same write as the end. */
  end(last?: SseEvent): void;
  /** Whether the client has gone away. */
  readonly closed: boolean;
}

// A batch this large goes out at once rather than at the end of the turn, so a burst never piles up unbounded.
const FLUSH_BYTES = 16 * 1024;

// An event the gateway made, or one without its upstream bytes, is framed from its name and data. Data with
// line breaks (an upstream may send JSON over several `data:` lines, which the reader joins with \n) needs one
// `data:` field per line, or the client reads the rest as unknown fields and loses it. JSON.stringify never
// writes a line break.
function bytesOf(event: SseEvent): Uint8Array {
  if (!('data' in event)) return Buffer.from(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
  if (event.raw) return event.raw;
  const data = event.data.includes('\n') || event.data.includes('\r') ? event.data.split(/\r\n|\r|\n/).join('\ndata: ') : event.data;
  return Buffer.from(`event: ${event.event}\ndata: ${data}\n\n`);
}

/**
 * The writer of one response. A class, so a stream costs one object and one listener rather than a closure
 * per method; the batch goes out from `process.nextTick(flushBatch, writer)`.
 */
class ResponseSseWriter implements SseWriter {
  readonly #res: Response;
  #closed = false;
  #batch: Uint8Array[] = [];
  #batchBytes = 0;
  #flushQueued = false;
  #holding = false;

  constructor(res: Response) {
    this.#res = res;
    res.on('close', () => {
      this.#closed = true;
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  open(headers: Record<string, string>): void {
    const res = this.#res;
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no');
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  }

  write(event: SseEvent): Promise<void> | undefined {
    const res = this.#res;
    if (this.#closed || res.writableEnded) return undefined;
    this.#add(bytesOf(event));
    if (this.#batchBytes >= FLUSH_BYTES) this.flush();
    else if (!this.#holding) this.#flushAtEndOfTurn();
    return res.writableNeedDrain ? drained(res) : undefined;
  }

  hold(): void {
    this.#holding = true;
  }

  release(): void {
    this.#holding = false;
    if (this.#batch.length > 0) this.#flushAtEndOfTurn();
  }

  end(last?: SseEvent): void {
    const res = this.#res;
    if (res.writableEnded) return;
    if (last && !this.#closed) this.#add(bytesOf(last));
    const body = this.#take();
    if (body && !this.#closed) res.end(body);
    else res.end();
  }

  /** Writes what the batch holds. */
  flush(): void {
    this.#flushQueued = false;
    const body = this.#take();
    const res = this.#res;
    if (!body || this.#closed || res.writableEnded) return;
    // Node corks the socket for a chunked write and uncorks it a `process.nextTick` later; corked here, the
    // same one writev (head, chunk size, chunk, CRLF) leaves now, without that tick.
    const socket = res.socket;
    if (!socket || socket.writableCorked) return void res.write(body);
    socket.cork();
    try {
      res.write(body);
    } finally {
      socket.uncork();
    }
  }

  #flushAtEndOfTurn(): void {
    if (this.#flushQueued) return;
    this.#flushQueued = true;
    // After this turn's promise callbacks: every event already on its way through the pipeline joins.
    process.nextTick(flushBatch, this);
  }

  #add(bytes: Uint8Array): void {
    this.#batch.push(bytes);
    this.#batchBytes += bytes.byteLength;
  }

  #take(): Uint8Array | undefined {
    const batch = this.#batch;
    const taken = batch.length <= 1 ? batch[0] : Buffer.concat(batch, this.#batchBytes);
    // The array is kept for the next batch: what it held was copied, or is returned.
    batch.length = 0;
    this.#batchBytes = 0;
    return taken;
  }
}

function flushBatch(writer: ResponseSseWriter): void {
  writer.flush();
}

function drained(res: Response): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** Wraps an express response as an SSE writer. */
export function createSseWriter(res: Response): SseWriter {
  return new ResponseSseWriter(res);
}
