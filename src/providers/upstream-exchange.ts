/**
 * One upstream HTTP exchange on undici's handler API (`Dispatcher.dispatch`), with a body that is not a Node
 * stream. Why: undici's `request()` hands back a `BodyReadable`, and every chunk of it goes through the
 * Readable machinery (push, addChunk, maybeReadMore, emitReadable, endReadable, resume, onDestroy), most of
 * which defers through `process.nextTick`; on Node 24 one nextTick costs ~3,000 instructions (its tick object
 * literal has computed symbol keys: `Runtime_DefineKeyedOwnPropertyInLiteral`), and about half of the ~13 a
 * JSON `POST /messages` made came from that body (callgrind, V8 profiles). Here the parser's callbacks hand
 * chunks straight to the one waiting reader, or queue them while the reader is behind.
 *
 * Kept from `request()` on purpose: the shared dispatcher and its headers/body timeouts, undici's own errors
 * (HeadersTimeoutError, BodyTimeoutError, SocketError, ECONNREFUSED...) and, for a cancelled call, the
 * signal's reason (or RequestAbortedError), so `upstreamErrorFromThrown` classifies exactly as before.
 */
import { errors, type Dispatcher } from 'undici';
import { upstreamDispatcher } from '#src/providers/http-client.ts';

type Controller = Dispatcher.DispatchController;
type Headers = Dispatcher.ResponseData['headers'];

/** An upstream's answer: its status line and headers, and the body still to read. */
export interface UpstreamResponse {
  statusCode: number;
  headers: Headers;
  body: UpstreamBody;
}

/**
 * The body of an upstream answer, read once: whole (`text`, `json`) or chunk by chunk (`for await`). Leaving
 * it unread holds the connection: a caller that does not read it to the end calls `discard`.
 */
export interface UpstreamBody extends AsyncIterable<Buffer> {
  /** The whole body as UTF-8 (a leading byte-order mark dropped, as undici's `text()` did). */
  text(): Promise<string>;
  /** The whole body parsed as JSON; a SyntaxError when it is not. */
  json(): Promise<unknown>;
  /**
   * Gives up the body: what already came is dropped; a response still arriving is aborted, so its connection
   * closes rather than carrying the rest (as destroying undici's body did). Safe to call more than once.
   */
  discard(): void;
}

/** What to send: the request line's method, the headers and a text body, and the call's abort signal. */
export interface UpstreamExchangeOptions {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
  /** How long to wait for the response's headers, when not the dispatcher's (a JSON answer's: see the Anthropic adapter). */
  headersTimeout?: number;
}

// The reader may fall this far behind before the upstream is paused (undici's body buffered 64 KiB too); it is
// resumed once the reader has caught up to the lower mark, so a resumed socket has room before the next pause.
const PAUSE_AT_BYTES = 64 * 1024;
const RESUME_AT_BYTES = 16 * 1024;

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

// The reader is not reading yet, reads chunk by chunk, or waits for the whole body.
const IDLE = 0;
const CHUNKS = 1;
const WHOLE = 2;

/**
 * Sends one request through the shared dispatcher. Resolves with the response once its headers are in (any
 * status); rejects with undici's error, or the signal's reason, when there is no response.
 */
export function exchangeUpstream(url: string, options: UpstreamExchangeOptions): Promise<UpstreamResponse> {
  const target = targetOf(url);
  const exchange = new UpstreamExchange(options.signal);
  const started = new Promise<unknown>(exchange.waitFor) as Promise<UpstreamResponse>;
  upstreamDispatcher().dispatch(
    options.headersTimeout === undefined
      ? { origin: target.origin, path: target.path, method: options.method, headers: options.headers, body: options.body ?? null }
      : { origin: target.origin, path: target.path, method: options.method, headers: options.headers, body: options.body ?? null, headersTimeout: options.headersTimeout },
    exchange,
  );
  return started;
}

interface Target {
  origin: string;
  path: string;
}

// URLs are a provider's base URL and one of a few paths: parsed once each, not per call.
const targets = new Map<string, Target>();

function targetOf(url: string): Target {
  let target = targets.get(url);
  if (target) return target;
  const parsed = new URL(url);
  target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
  if (targets.size >= 1_000) targets.clear();
  targets.set(url, target);
  return target;
}

/** The dispatch handler of one exchange and, once the headers are in, its response's body. */
class UpstreamExchange implements Dispatcher.DispatchHandler, UpstreamBody, AsyncIterator<Buffer> {
  #controller: Controller | null = null;
  #signal: AbortSignal | null;
  /** The signal's reason when it aborted before a connection took the request. */
  #abortBeforeStart: Error | null = null;
  /** Why the exchange failed: undici's error or the signal's reason. Set once. */
  #error: Error | null = null;
  /** The upstream sent its whole body (the connection is free again). */
  #ended = false;
  /** The reader is finished with the body (read its end, discarded it, or was given its error). */
  #closed = false;
  #mode = IDLE;
  #chunks: Buffer[] = [];
  #queuedBytes = 0;
  /** The one pending promise: the response's, then a chunk reader's `next()` or a whole-body read. */
  #resolve: ((value: unknown) => void) | null = null;
  #reject: ((error: Error) => void) | null = null;

  constructor(signal: AbortSignal) {
    this.#signal = signal;
    if (signal.aborted) this.#abortBeforeStart = abortReason(signal);
    else signal.addEventListener('abort', this);
  }

  onRequestStart(controller: Controller): void {
    // A signal that aborted while the request waited for a connection cancels it now, as `request()` did.
    if (this.#abortBeforeStart) controller.abort(this.#abortBeforeStart);
    else this.#controller = controller;
  }

  onResponseStart(_controller: Controller, statusCode: number, headers: Headers): void {
    if (statusCode >= 200) this.#settle()?.({ statusCode, headers, body: this } satisfies UpstreamResponse);
  }

  onResponseData(controller: Controller, chunk: Buffer): void {
    if (this.#closed) return;
    if (this.#resolve !== null && this.#mode === CHUNKS) return void this.#settle()?.({ done: false, value: chunk });
    this.#chunks.push(chunk);
    this.#queuedBytes += chunk.length;
    if (this.#mode !== WHOLE && this.#queuedBytes >= PAUSE_AT_BYTES) controller.pause();
  }

  onResponseEnd(): void {
    this.#ended = true;
    if (this.#resolve === null) return;
    if (this.#mode === WHOLE) this.#settle()?.(this.#takeAll());
    else {
      this.#close();
      this.#settle()?.(DONE);
    }
  }

  onResponseError(_controller: Controller | null, error: Error): void {
    this.#fail(error);
  }

  text(): Promise<string> {
    return this.#readAll().then(decode);
  }

  json(): Promise<unknown> {
    return this.#readAll().then(parse);
  }

  [Symbol.asyncIterator](): AsyncIterator<Buffer> {
    return this;
  }

  next(): Promise<IteratorResult<Buffer>> {
    if (this.#mode === WHOLE) return Promise.reject(new TypeError('The upstream body is already being read whole'));
    this.#mode = CHUNKS;
    const chunk = this.#chunks.shift();
    if (chunk !== undefined) {
      this.#queuedBytes -= chunk.length;
      // Resuming may deliver more chunks at once (they queue): the state above is settled first.
      if (this.#queuedBytes <= RESUME_AT_BYTES && this.#controller?.paused) this.#controller.resume();
      return Promise.resolve({ done: false, value: chunk });
    }
    if (this.#error) return this.#failRead(this.#error);
    if (this.#ended || this.#closed) {
      this.#close();
      return Promise.resolve(DONE);
    }
    // Not reached while the back-pressure marks hold (the reader resumes before the queue runs dry); if it is,
    // resuming may deliver chunks at once, and they are read before waiting.
    if (this.#controller?.paused) {
      this.#controller.resume();
      return this.next();
    }
    return new Promise<unknown>(this.waitFor) as Promise<IteratorResult<Buffer>>;
  }

  /** Called when a `for await` loop is left early (break, throw): the rest is not wanted. */
  return(): Promise<IteratorResult<Buffer>> {
    this.discard();
    return Promise.resolve(DONE);
  }

  discard(): void {
    if (this.#closed) return;
    this.#close();
    this.#chunks = [];
    this.#queuedBytes = 0;
    const reject = this.#reject;
    const resolve = this.#settle();
    if (!this.#ended && !this.#error) this.#controller?.abort(new errors.RequestAbortedError());
    // A read still pending (a whole-body read, or a next() not yet answered) learns that the body is gone.
    if (this.#mode === WHOLE) reject?.(new errors.RequestAbortedError());
    else resolve?.(DONE);
  }

  #readAll(): Promise<Buffer> {
    if (this.#mode !== IDLE) return Promise.reject(new TypeError('The upstream body is already being read'));
    this.#mode = WHOLE;
    if (this.#error) return this.#failRead(this.#error) as Promise<never>;
    // A paused upstream (the body waited unread) flows again; resuming may end the body at once.
    if (this.#controller?.paused) this.#controller.resume();
    if (this.#error) return this.#failRead(this.#error) as Promise<never>;
    if (this.#ended) return Promise.resolve(this.#takeAll());
    return new Promise<unknown>(this.waitFor) as Promise<Buffer>;
  }

  #takeAll(): Buffer {
    const chunks = this.#chunks;
    const whole = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, this.#queuedBytes);
    this.#chunks = [];
    this.#queuedBytes = 0;
    this.#close();
    return whole;
  }

  /** The executor of every promise this exchange hands out, bound once: it only keeps the resolvers. */
  readonly waitFor = (resolve: (value: unknown) => void, reject: (error: Error) => void): void => {
    this.#resolve = resolve;
    this.#reject = reject;
  };

  /** The pending promise's resolver, taken (null when none is pending). */
  #settle(): ((value: unknown) => void) | null {
    const resolve = this.#resolve;
    this.#resolve = null;
    this.#reject = null;
    return resolve;
  }

  /** The signal aborted (the exchange is its own listener: no closure per call). */
  handleEvent(): void {
    if (this.#closed || !this.#signal) return;
    const reason = abortReason(this.#signal);
    const controller = this.#controller;
    // Before a connection took the request, it is cancelled when one does (onRequestStart), as with `request()`.
    if (!controller) {
      this.#abortBeforeStart = reason;
      return;
    }
    // Failing first makes the reason, not the RequestAbortedError the abort echoes back, what the reader sees.
    this.#fail(reason);
    if (!this.#ended) controller.abort(reason);
  }

  #fail(error: Error): void {
    if (this.#error || this.#closed) return;
    this.#error = error;
    this.#chunks = [];
    this.#queuedBytes = 0;
    const reject = this.#reject;
    if (reject === null) return;
    this.#settle();
    this.#close();
    reject(error);
  }

  #failRead(error: Error): Promise<never> {
    this.#close();
    return Promise.reject(error);
  }

  /** The reader is done with the body: the signal no longer concerns this exchange. */
  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#signal?.removeEventListener('abort', this);
    this.#signal = null;
  }
}

function abortReason(signal: AbortSignal): Error {
  return (signal.reason as Error | undefined) ?? new errors.RequestAbortedError();
}

// A leading byte-order mark is dropped, as undici's body mixin does.
function decode(bytes: Buffer): string {
  const start = bytes.length > 2 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return bytes.toString('utf8', start);
}

function parse(bytes: Buffer): unknown {
  return JSON.parse(decode(bytes));
}
