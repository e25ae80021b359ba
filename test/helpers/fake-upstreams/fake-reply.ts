import type { FixtureVendor } from './fixtures.ts';
import type { ByteSplit } from './split-bytes.ts';

/** How a reply's bytes reach the client: timing, chunking and the faults that cut a response short. */
export interface ReplyDelivery {
  /** Wait this long before sending the status line and headers: exercises first-byte timeouts. */
  delayMs?: number;
  /**
   * Hold the reply (after `delayMs`) until this settles: a test does something while the gateway waits on
   * this upstream (deletes a credential, say), then lets the reply go.
   */
  until?: Promise<unknown>;
  /** Pause between written chunks; without it the fake still yields to the event loop between writes. */
  chunkDelayMs?: number;
  /** Re-cut the body at arbitrary byte boundaries instead of writing one chunk per event. */
  split?: ByteSplit;
  /**
   * Send only the first `afterEvents` events (plus `plusBytes` bytes of the next one, to leave a partial
   * frame), then `end` the response cleanly (default) or `destroy` the socket mid-body.
   * For a JSON body the whole body is the single event: use `afterEvents: 0, plusBytes: n`.
   */
  truncate?: { afterEvents: number; plusBytes?: number; mode?: 'end' | 'destroy' };
  /** Send the first N events, then write nothing more and keep the connection open until it is closed. */
  stallAfterEvents?: number;
  /**
   * Send the first `afterEvents` events, then the vendor's in-stream error event for `status` (OpenAI's with
   * `code` as its error code, e.g. `insufficient_quota`), then end.
   */
  streamError?: { afterEvents: number; status: number; message?: string; code?: string };
  /** Extra response headers, merged over the fake's own. */
  headers?: Record<string, string>;
}

/** A recorded response replayed by name (`.json` or `.chunks.txt` chosen by the request unless given). */
export interface FixtureReply extends ReplyDelivery {
  type: 'fixture';
  name: string;
  /** Fixture folder when it differs from the fake's default (e.g. `groq` on the OpenAI chat fake). */
  vendor?: FixtureVendor;
  status?: number;
}

/** An inline non-streaming body. */
export interface JsonReply extends ReplyDelivery {
  type: 'json';
  body: unknown;
  status?: number;
}

/** An inline stream: event payloads in the same shape as a `.chunks.txt` line. */
export interface EventsReply extends ReplyDelivery {
  type: 'events';
  events: readonly unknown[];
}

/** An inline stream of exact SSE frames (`event: …\ndata: …\n\n`), written byte for byte as given. */
export interface SseReply extends ReplyDelivery {
  type: 'sse';
  frames: readonly string[];
}

/** An HTTP error in the vendor's own error body shape (or a given body or error fixture). */
export interface ErrorReply extends ReplyDelivery {
  type: 'error';
  status: number;
  message?: string;
  /** The vendor's error class or code, for formats that carry one (Bedrock, OpenAI-style). */
  code?: string;
  body?: unknown;
  fixture?: string;
  vendor?: FixtureVendor;
}

/** A TCP reset (RST) after the request has been read and before any response byte. */
export interface ResetReply {
  type: 'reset';
  delayMs?: number;
}

/** One answer in two forms: `json` for a request that asks for a whole body, `stream` for one that streams. */
export interface EitherReply {
  type: 'either';
  json: Exclude<FakeReply, EitherReply>;
  stream: Exclude<FakeReply, EitherReply>;
}

/** Any scripted answer of a fake upstream. */
export type FakeReply = FixtureReply | JsonReply | EventsReply | SseReply | ErrorReply | ResetReply | EitherReply;

/** Short constructors for scripted replies, e.g. `reply.error(529)` or `reply.fixture('anthropic-text')`. */
export const reply = {
  /** Replays a recording; pass `name.json` or `name.chunks.txt` to force one form. */
  fixture(name: string, options: Omit<FixtureReply, 'type' | 'name'> = {}): FixtureReply {
    return { type: 'fixture', name, ...options };
  },
  /** Answers with an inline JSON body. */
  json(body: unknown, options: Omit<JsonReply, 'type' | 'body'> = {}): JsonReply {
    return { type: 'json', body, ...options };
  },
  /** Streams inline event payloads in the fake's framing. */
  events(events: readonly unknown[], options: Omit<EventsReply, 'type' | 'events'> = {}): EventsReply {
    return { type: 'events', events, ...options };
  },
  /** Streams exact frame text, so a test can compare the bytes a client receives with what was sent. */
  sse(frames: readonly string[], options: Omit<SseReply, 'type' | 'frames'> = {}): SseReply {
    return { type: 'sse', frames, ...options };
  },
  /** Answers with an HTTP error in the vendor's error shape. */
  error(status: number, options: Omit<ErrorReply, 'type' | 'status'> = {}): ErrorReply {
    return { type: 'error', status, ...options };
  },
  /** The same answer as a whole body or a stream, whichever the request asks for (a scripted tool-loop step). */
  either(json: Exclude<FakeReply, EitherReply>, stream: Exclude<FakeReply, EitherReply>): EitherReply {
    return { type: 'either', json, stream };
  },
  /** Resets the connection without answering. */
  reset(options: Omit<ResetReply, 'type'> = {}): ResetReply {
    return { type: 'reset', ...options };
  },
};
