/**
 * What a shutdown needs to know about the requests in flight, and how it reaches them. Mounted first on the
 * app, the tracker counts every request until its response closes. Once draining, a new request on a
 * connection still open answers 503 (with `Connection: close`), except `GET /health`, which says `draining`.
 * At the grace deadline each request still in flight is ended through what it registered: streams end with an
 * in-band `overloaded_error` event (see `streamStage`), and every request's abort signal fires, so upstream
 * calls stop and JSON requests answer 503.
 */
import type { RequestHandler, Response } from 'express';
import { ShuttingDownError } from '#src/errors.ts';
import type { SseEvent } from '#src/providers/provider-adapter.ts';
import { staged, type EventStage } from '#src/providers/event-stages.ts';

/** What one request in flight registers: called at the grace deadline. */
type DeadlineHook = (error: ShuttingDownError) => void;

interface InFlight {
  hooks: DeadlineHook[];
}

const LOCALS_KEY = 'drain';

/** The drain state of one server. */
export class DrainTracker {
  readonly #inFlight = new Set<InFlight>();
  readonly #idleWaiters = new Set<() => void>();
  #draining = false;
  #deadlinePassed = false;
  readonly #healthPath: string;

  /** `healthPath` is the one path still answered (by its route) while draining. */
  constructor(options: { healthPath: string }) {
    this.#healthPath = options.healthPath;
  }

  /** Requests whose responses have not closed yet. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  get draining(): boolean {
    return this.#draining;
  }

  /** The middleware counting requests and refusing new ones while draining. */
  readonly middleware: RequestHandler = (req, res, next) => {
    if (this.#draining) {
      res.setHeader('Connection', 'close');
      if (req.path !== this.#healthPath) {
        next(new ShuttingDownError());
        return;
      }
    }
    const entry: InFlight = { hooks: [] };
    this.#inFlight.add(entry);
    res.locals[LOCALS_KEY] = entry;
    // `on`, not `once`: a response closes once, and `once` wraps each listener in two more objects.
    res.on('close', () => {
      this.#inFlight.delete(entry);
      // The set lives in the old generation, and V8's scavenges keep reaching an entry after it is deleted,
      // until the next full collection (the set's earlier backing tables, left behind as it grows and
      // rehashes, still point at it). Its hooks close over the request's abort controller, response and
      // request, so every request outlived the scavenges and was promoted, about 5 KB each
      // (bench/promoted-bytes.ts): a closed entry lets go of them.
      entry.hooks.length = 0;
      if (this.#inFlight.size === 0) for (const resolve of this.#idleWaiters) resolve();
    });
    next();
  };

  /** Starts draining: new requests are refused from now on. */
  beginDrain(): void {
    this.#draining = true;
  }

  /** Resolves once no request is in flight, or after `timeoutMs`; true when idle. */
  whenIdle(timeoutMs: number): Promise<boolean> {
    if (this.#inFlight.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (idle: boolean) => {
        clearTimeout(timer);
        this.#idleWaiters.delete(onIdle);
        resolve(idle);
      };
      const onIdle = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.#idleWaiters.add(onIdle);
    });
  }

  /** The grace period is over: every request still in flight is told, streams first. */
  passDeadline(): void {
    this.#deadlinePassed = true;
    const error = new ShuttingDownError();
    for (const entry of this.#inFlight) for (const hook of entry.hooks) hook(error);
  }

  /** Registers what to do for this response at the deadline (the request's abort, say). */
  onDeadline(res: Response, hook: DeadlineHook): void {
    (res.locals[LOCALS_KEY] as InFlight | undefined)?.hooks.push(hook);
  }

  /**
   * The stage that ends a stream with the shutdown error once the deadline has passed: the error the stream's
   * reader sees then (its upstream read aborted) becomes the in-band `overloaded_error` event. It keeps no
   * state of its own, so every stream shares it.
   */
  readonly streamStage: EventStage = {
    event: (event) => {
      if (this.#deadlinePassed) throw new ShuttingDownError();
      return event;
    },
    fail: (error) => (this.#deadlinePassed ? new ShuttingDownError() : error),
  };

  /** The events with `streamStage` added to their stages. */
  guardStream(events: AsyncIterable<SseEvent>): AsyncIterable<SseEvent> {
    return staged(events, this.streamStage);
  }
}
