/**
 * Writes Anthropic-format server-sent events to a client response: one helper, so framing, serialisation,
 * headers and back-pressure are handled in one place. Nothing is held back, and nothing goes out alone that could go with
 * what follows: the status line and headers leave with the first event, and the last event with the end of
 * the chunked body. Each extra packet is one more wake-up and read a client must make before it sees the
 * next event (a pass-through proxy sends a whole upstream chunk, headers included, in one write).
 */
import type { Response } from 'express';
import { isRawSseEvent, type SseEvent } from '#src/providers/provider-adapter.ts';

/** A stream of server-sent events to one client. */
export interface SseWriter {
  /** Sets the status line and headers, which leave with the first event; call once, before it. */
  open(headers: Record<string, string>): void;
  /** Writes one event, waiting for the socket to drain when the client reads slower than we write. */
  write(event: SseEvent): Promise<void>;
  /** Ends the response, writing `last` (the stream's final event) in the same write as the end. */
  end(last?: SseEvent): void;
  /** Whether the client has gone away. */
  readonly closed: boolean;
}

// An upstream's event goes out as its text. Data with line breaks (an upstream may send JSON over several
// `data:` lines, which the reader joins with \n) needs one `data:` field per line, or the client reads the rest
// as unknown fields and loses it. A typed event is serialised here, once; JSON text never holds a line break.
function frame(event: SseEvent): string {
  if (!isRawSseEvent(event)) return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
  const data = event.data.includes('\n') || event.data.includes('\r') ? event.data.split(/\r\n|\r|\n/).join('\ndata: ') : event.data;
  return `event: ${event.event}\ndata: ${data}\n\n`;
}

/** Wraps an express response as an SSE writer. */
export function createSseWriter(res: Response): SseWriter {
  let closed = false;
  res.on('close', () => {
    closed = true;
  });
  return {
    open(headers) {
      res.status(200);
      res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
      res.setHeader('Cache-Control', 'no-cache');
      res.setHeader('Connection', 'keep-alive');
      res.setHeader('X-Accel-Buffering', 'no');
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    },
    async write(event) {
      if (closed || res.writableEnded) return;
      if (!res.write(frame(event))) {
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.on('drain', done);
          res.on('close', done);
        });
      }
    },
    end(last) {
      if (res.writableEnded) return;
      if (last && !closed) res.end(frame(last));
      else res.end();
    },
    get closed() {
      return closed;
    },
  };
}
