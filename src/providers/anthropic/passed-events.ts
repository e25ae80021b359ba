/**
 * An Anthropic-format upstream's events as they arrive, for the passthrough: the body cut into events whose
 * bytes are kept (the SSE writer forwards them as they came); only each event's name is read here, and the
 * data of an `error` event, which fails the stream, and of `message_start`, which opens the one message a
 * stream may carry: Anthropic has been recorded repeating it (dropped here) and starting a second message
 * inside the first (a failure: the client holds half of the first already). A plain iterator rather than an async generator: the
 * events of one upstream packet (usually all of a short answer) are handed out from an array, without a promise
 * to a reader that asks `nextReady` (src/http/stream-to-client.ts) and with an already-resolved one to any
 * other, and the body is read only when they run out, where a generator's `yield` cost promise and microtask
 * work per event on every stream.
 */
import { UpstreamError } from '#src/errors.ts';
import { kindForErrorType } from '#src/error-vocabulary.ts';
import type { SseEvent } from '#src/providers/provider-adapter.ts';
import type { ReadyEventIterator } from '#src/providers/event-stages.ts';
import { SseEventSplitter, type UpstreamSseEvent } from '#src/providers/sse-reader.ts';
import type { UpstreamBody } from '#src/providers/upstream-exchange.ts';
import { upstreamErrorFromThrown } from '#src/providers/map-upstream-failure.ts';

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

// Parsed once for every reader that only looks (src/providers/sse-reader.ts): routing and the additions read
// the same message_start after this.
function messageIdOf(event: UpstreamSseEvent): unknown {
  try {
    return (event.peekPayload() as { message?: { id?: unknown } } | null)?.message?.id;
  } catch {
    return undefined;
  }
}

function vendorErrorType(data: string): unknown {
  try {
    return (JSON.parse(data) as { error?: { type?: unknown } }).error?.type;
  } catch {
    return undefined;
  }
}

/**
 * The events of one upstream stream. It ends after the body has ended, with `malformed_response` when no
 * `message_stop` came; a failure (an `error` event, the body's) is thrown once and the body given up, and
 * so is the body when the reader stops early (`return`). Read by one reader, one `next()` at a time.
 */
export class PassedEvents implements AsyncIterableIterator<SseEvent>, ReadyEventIterator {
  readonly #provider: string;
  readonly #body: UpstreamBody;
  readonly #chunks: AsyncIterator<Buffer>;
  readonly #splitter = new SseEventSplitter();
  /** The events cut from the last chunk, handed out from `#index`. */
  #ready: UpstreamSseEvent[] = [];
  #index = 0;
  #stopped = false;
  #bodyEnded = false;
  /** The id of the message the stream's `message_start` opened (null when it had none), once it came. */
  #messageId: unknown;
  #messageStarted = false;
  /** Failed, ended or given up: every later read is the end. */
  #finished = false;

  constructor(provider: string, body: UpstreamBody) {
    this.#provider = provider;
    this.#body = body;
    this.#chunks = body[Symbol.asyncIterator]();
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<SseEvent> {
    return this;
  }

  next(): Promise<IteratorResult<SseEvent>> {
    let taken: IteratorResult<SseEvent> | undefined;
    try {
      taken = this.#take();
    } catch (error) {
      return Promise.reject(error);
    }
    return taken ? Promise.resolve(taken) : this.#chunks.next().then(this.#onChunk, this.#onFailure);
  }

  /** The next event of the last chunk read, or undefined when there is none left (or the stream is over). */
  nextReady(): SseEvent | undefined {
    while (!this.#finished && this.#index < this.#ready.length) {
      const event = this.#takeReady();
      if (event) return event;
    }
    return undefined;
  }

  /** The reader stopped early: the rest of the body is not wanted. */
  return(): Promise<IteratorResult<SseEvent>> {
    this.#finish();
    return Promise.resolve(DONE);
  }

  /** The next event, the end, or undefined when a chunk must be read first; throws the stream's failure. */
  #take(): IteratorResult<SseEvent> | undefined {
    while (!this.#finished && this.#index < this.#ready.length) {
      const event = this.#takeReady();
      if (event) return { done: false, value: event };
    }
    if (this.#finished) return DONE;
    if (!this.#bodyEnded) return undefined;
    this.#finish();
    if (!this.#stopped) throw new UpstreamError({ provider: this.#provider, kind: 'malformed_response', message: `Upstream ${this.#provider} ended the stream early` });
    return DONE;
  }

  /**
   * The next of the ready events (there is one), or undefined when it is dropped (a repeated `message_start`);
   * throws the failure an `error` event, or a second message inside the first, is.
   */
  #takeReady(): SseEvent | undefined {
    const event = this.#ready[this.#index]!;
    this.#index += 1;
    if (event.event === 'error') throw this.#fail(new UpstreamError({ provider: this.#provider, kind: kindForErrorType(vendorErrorType(event.data)), rawBody: event.data }));
    if (event.event === 'message_stop') this.#stopped = true;
    else if (event.event === 'message_start') return this.#admitMessageStart(event);
    return event;
  }

  /** The stream's first `message_start`, passed; the same one again, dropped; another message's, a failure. */
  #admitMessageStart(event: UpstreamSseEvent): SseEvent | undefined {
    const id = messageIdOf(event) ?? null;
    if (!this.#messageStarted) {
      this.#messageStarted = true;
      this.#messageId = id;
      return event;
    }
    if (id === this.#messageId) return undefined;
    throw this.#fail(
      new UpstreamError({
        provider: this.#provider,
        kind: 'malformed_response',
        message: `Upstream ${this.#provider} started message ${JSON.stringify(id)} inside message ${JSON.stringify(this.#messageId)}`,
        rawBody: event.data.slice(0, 4096),
      }),
    );
  }

  readonly #onChunk = (chunk: IteratorResult<Buffer>): IteratorResult<SseEvent> | Promise<IteratorResult<SseEvent>> => {
    // Given up while the read was pending: the body's end says nothing then.
    if (this.#finished) return DONE;
    try {
      this.#ready = chunk.done ? this.#splitter.end() : this.#splitter.push(chunk.value);
    } catch (error) {
      throw this.#fail(error);
    }
    this.#index = 0;
    if (chunk.done) this.#bodyEnded = true;
    // A chunk that completes no event (a part of one): read on.
    return this.#take() ?? this.next();
  };

  readonly #onFailure = (error: unknown): never => {
    throw this.#fail(error);
  };

  #fail(error: unknown): UpstreamError {
    this.#finish();
    return upstreamErrorFromThrown(this.#provider, error);
  }

  #finish(): void {
    this.#finished = true;
    this.#ready = [];
    this.#body.discard();
  }
}
