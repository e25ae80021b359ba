/**
 * Synchronous stages of an event stream on its way to the client: the gateway's additions, the shutdown
 * deadline, the generation record. Each is a plain object applied to every event in one loop (the stream
 * writer's, src/http/stream-to-client.ts), so an event costs one call per stage, where an async generator
 * per layer cost promises and microtask turns per event; only the upstream read stays asynchronous.
 * `staged` adds a stage to a stream: a stream that has stages already gets one list of them, not one more
 * layer, so whoever wraps the events (the messages service, the drain tracker, the observer) keeps passing an
 * iterable. A reader that does not run the stages itself (the plugins' pass, the tool loop's, the tests)
 * iterates them as one generator with the same order of events, failures and ends as a chain of generators.
 */
import type { SseEvent } from '#src/providers/provider-adapter.ts';

/**
 * How a stream ended, as the stages hear it: its source ended (`complete`), it `failed` (the error as the
 * last stage passed it on), or its reader stopped early (`abandoned`: the client left).
 */
export type StreamEnd = { kind: 'complete' } | { kind: 'failed'; error: unknown } | { kind: 'abandoned' };

/**
 * An event iterator that can hand out an event it holds already without a promise (the rest of an upstream
 * packet): `nextReady` returns it, or throws the stream's failure as `next` would reject with it, or returns
 * undefined when only `next` can tell what comes (more must be read, or the stream is over). A reader that
 * takes what is ready this way and awaits `next` only for the rest sees the same events, failures and end.
 */
export interface ReadyEventIterator extends AsyncIterator<SseEvent> {
  nextReady(): SseEvent | undefined;
}

/** The iterator as a `ReadyEventIterator` when it is one. */
export function readyEventsOf(iterator: AsyncIterator<SseEvent>): ReadyEventIterator | undefined {
  return typeof (iterator as Partial<ReadyEventIterator>).nextReady === 'function' ? (iterator as ReadyEventIterator) : undefined;
}

/** One synchronous step over every event of a stream; one object per stream when it keeps state. */
export interface EventStage {
  /** The event to pass on: the same, or an amended copy. Throwing fails the stream with that error. */
  event(event: SseEvent): SseEvent;
  /** The stream failed before reaching this stage (upstream or in an earlier stage): the error to pass on. */
  fail?(error: unknown): unknown;
  /** The stream is over; heard once, whichever way it ended. */
  end?(how: StreamEnd): void;
}

// Shared, as they carry nothing of their stream.
const COMPLETE: StreamEnd = { kind: 'complete' };
const ABANDONED: StreamEnd = { kind: 'abandoned' };

/**
 * The stages of one stream in order, as their reader drives them: every event through `pass`, then exactly
 * one of `complete`, `fail` or `abandon` that counts (the first; the rest are no-ops). An error thrown by
 * stage i passes through the `fail` of the stages after it only, as it would through a chain of generators.
 */
export class StageRun {
  readonly #stages: readonly EventStage[];
  #ended = false;
  #error: unknown;

  constructor(stages: readonly EventStage[]) {
    this.#stages = stages;
  }

  /** The event after every stage; throws (once failed, as `fail` returns it) when a stage throws. */
  pass(event: SseEvent): SseEvent {
    const stages = this.#stages;
    let index = 0;
    let passed = event;
    try {
      for (; index < stages.length; index += 1) passed = stages[index]!.event(passed);
    } catch (error) {
      throw this.#fail(error, index + 1);
    }
    return passed;
  }

  /** The source ended. */
  complete(): void {
    this.#end(COMPLETE);
  }

  /**
   * The stream failed: returns the error to report, as the last stage passed it on. An error `pass` threw
   * comes back as it was thrown, not passed through the stages again.
   */
  fail(error: unknown): unknown {
    return this.#ended ? (this.#error ?? error) : this.#fail(error, 0);
  }

  /** The reader stopped early (nothing when the stream ended already). */
  abandon(): void {
    this.#end(ABANDONED);
  }

  #fail(error: unknown, from: number): unknown {
    let passed = error;
    const stages = this.#stages;
    for (let index = from; index < stages.length; index += 1) {
      const stage = stages[index]!;
      if (stage.fail) passed = stage.fail(passed);
    }
    this.#error = passed;
    this.#end({ kind: 'failed', error: passed });
    return passed;
  }

  #end(how: StreamEnd): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const stage of this.#stages) stage.end?.(how);
  }
}

/** The events after the stages, as one async generator (for the paths that read an iterable). */
export async function* withStages(events: AsyncIterable<SseEvent>, stages: readonly EventStage[]): AsyncGenerator<SseEvent> {
  const run = new StageRun(stages);
  try {
    for await (const event of events) yield run.pass(event);
    run.complete();
  } catch (error) {
    throw run.fail(error);
  } finally {
    run.abandon();
  }
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

// Closing a source after a stage threw: the stage's error is what the reader hears, as a for-await loop's.
async function closeQuietly(source: AsyncIterator<SseEvent>): Promise<void> {
  try {
    await source.return?.();
  } catch {
    // The stage's error stands.
  }
}

/**
 * A `StagedEvents` read as `withStages` reads it (the same events, failures, ends, and the source closed when a
 * stage throws), and as a `ReadyEventIterator`: what its source holds already passes the stages and is handed
 * out without a promise, where a generator's `yield` cost promises and microtask turns per event on every
 * stream that a reader (the refusal splice) iterates rather than runs. One reader, one `next()` at a time.
 */
class StagedIterator implements AsyncIterableIterator<SseEvent>, ReadyEventIterator {
  readonly #events: StagedEvents;
  #source: AsyncIterator<SseEvent> | undefined;
  #ready: ReadyEventIterator | undefined;
  #run: StageRun | undefined;
  #done = false;
  // A stage threw on an event `nextReady` passed: `next` closes the source and throws it.
  #thrown: { error: unknown } | undefined;

  constructor(events: StagedEvents) {
    this.#events = events;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<SseEvent> {
    return this;
  }

  nextReady(): SseEvent | undefined {
    if (this.#done || this.#thrown) return undefined;
    const ready = this.#start() && this.#ready;
    if (!ready) return undefined;
    const run = this.#run!;
    let event: SseEvent | undefined;
    try {
      event = ready.nextReady();
    } catch (error) {
      this.#done = true;
      throw run.fail(error);
    }
    if (event === undefined) return undefined;
    try {
      return run.pass(event);
    } catch (error) {
      this.#thrown = { error };
      return undefined;
    }
  }

  async next(): Promise<IteratorResult<SseEvent>> {
    if (this.#thrown) return this.#throwStageError(this.#thrown.error);
    if (this.#done) return DONE;
    const source = this.#start();
    const run = this.#run!;
    let read: IteratorResult<SseEvent>;
    try {
      read = await source.next();
    } catch (error) {
      this.#done = true;
      throw run.fail(error);
    }
    if (read.done) {
      this.#done = true;
      run.complete();
      return DONE;
    }
    try {
      return { done: false, value: run.pass(read.value) };
    } catch (error) {
      return this.#throwStageError(error);
    }
  }

  /** The reader stopped early: the source is closed and the stages hear it (nothing when it never started or is over). */
  async return(): Promise<IteratorResult<SseEvent>> {
    const source = this.#source;
    if (this.#done || !source) {
      this.#done = true;
      return DONE;
    }
    this.#done = true;
    try {
      await source.return?.();
    } finally {
      this.#run!.abandon();
    }
    return DONE;
  }

  // The source's iterator, asked for at the first read as a for-await loop asks for it.
  #start(): AsyncIterator<SseEvent> {
    if (this.#source) return this.#source;
    const source = this.#events.source[Symbol.asyncIterator]();
    this.#source = source;
    this.#ready = readyEventsOf(source);
    this.#run = new StageRun(this.#events.stages);
    return source;
  }

  async #throwStageError(error: unknown): Promise<never> {
    this.#thrown = undefined;
    this.#done = true;
    await closeQuietly(this.#source!);
    throw error;
  }
}

/**
 * A stream's source and the stages its events still go through, in order: plain data that a reader runs in its
 * own loop (`source`, then `StageRun`), or iterates as it would any stream.
 */
export class StagedEvents implements AsyncIterable<SseEvent> {
  readonly source: AsyncIterable<SseEvent>;
  readonly stages: readonly EventStage[];

  constructor(source: AsyncIterable<SseEvent>, stages: readonly EventStage[]) {
    this.source = source;
    this.stages = stages;
  }

  [Symbol.asyncIterator](): AsyncIterator<SseEvent> {
    return new StagedIterator(this);
  }
}

/** `events` with `stage` after whatever stages they have: one list of stages, however many are added. */
export function staged(events: AsyncIterable<SseEvent>, stage: EventStage): StagedEvents {
  return events instanceof StagedEvents ? new StagedEvents(events.source, [...events.stages, stage]) : new StagedEvents(events, [stage]);
}
