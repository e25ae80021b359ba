/**
 * A stream's refusal moved on to the next model, as Anthropic's server-side fallback streams it: a refusal is
 * known only at its `message_delta`, after the refused model's events went to the client, so the next model's
 * answer is spliced in at that point: a `fallback` block (a `content_block_start` and `content_block_stop`
 * pair, no deltas), then the next stream's content blocks numbered on from there, its `message_delta` and its
 * `message_stop`. Its `message_start` is dropped (the client's message started with the first model's, as
 * Anthropic's does); the usage it announced fills what its `message_delta` leaves out, and the refused
 * calls' charges are added to it (src/messages/refusal-charges.ts), so the client's totals are all it is charged.
 * @see src/messages/refused-hops.ts (the same answer as a JSON body)
 */
import type { Usage } from '#src/api-types.ts';
import { eventPayload, peekEventPayload, sseEventName, type SseEvent } from '#src/providers/provider-adapter.ts';
import { readyEventsOf, type ReadyEventIterator } from '#src/providers/event-stages.ts';
import { fallbackBlock } from '#src/messages/refused-hops.ts';
import { refusalOf } from '#src/messages/refusal-billing.ts';

/** The next model's stream, started and amended with its own attempt's fields (model, cost). */
export interface NextModelStream {
  model: string;
  events: AsyncIterable<SseEvent>;
  /** The usage its `message_start` announced (which the splice drops): what it read before any output. */
  started?: Partial<Usage> | undefined;
}

// A key JSON leaves out: the usage the serving stream's dropped message_start announced rides on the fallback
// block's start event to the request's observer (the client never sees it), so that a stream the client
// leaves before the serving model's message_delta is charged what that model read, not the refused one.
const SERVING_STARTED = Symbol('servingStarted');

/** What the model that goes on after a `fallback` block's start event announced it read; undefined for any other event. */
export function servingStartedUsage(event: SseEvent): Partial<Usage> | undefined {
  return (event as { [SERVING_STARTED]?: Partial<Usage> })[SERVING_STARTED];
}

/** A stream's refusal: its model, what it reported, its category and whether a content block of its own had started. */
export interface StreamRefusal {
  model: string;
  /** Its `message_delta`'s counts, message_start's where the delta left one out. */
  usage: Partial<Usage>;
  category: string | null;
  /** A block started before the refusal: output began, which its upstream bills (src/messages/refusal-billing.ts). */
  outputBegan: boolean;
  /** The vendor's filter refused the prompt before its model ran, which it does not bill (src/messages/refusal-billing.ts). */
  blockedBeforeModel: boolean;
}

/** Starts the next model after a stream's refusal; null when none answers (the refusal is then the answer). */
export type StartNextModel = (refused: StreamRefusal) => Promise<NextModelStream | null>;

/** Amends the serving model's closing usage (already filled in and priced) with what the refusals before it are charged. */
export type ChargeRefusals = (usage: Usage) => Usage;

interface IndexedPayload {
  index: number;
}

interface DeltaPayload {
  delta?: { stop_reason?: string | null; stop_details?: { category?: unknown } | null };
  usage?: Partial<Usage>;
}

// What a message_start announced and a message_delta may leave out.
const STARTED_COUNTS = ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'] as const;

/** The counts `started` announced that `usage` leaves out, filled in. */
function withStartedCounts(usage: Partial<Usage> | undefined, started: Partial<Usage> | undefined): Partial<Usage> {
  const filled: Partial<Usage> = { ...usage };
  if (started) for (const field of STARTED_COUNTS) if (typeof filled[field] !== 'number' && typeof started[field] === 'number') filled[field] = started[field];
  return filled;
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

// What `#pass` makes of one event: the event to hand out, nothing (dropped), or the refusal to move on from.
interface Refused {
  refusal: DeltaPayload;
  event: SseEvent;
}

/**
 * The splice as a plain iterator rather than an async generator: every stream passes it and almost none refuses,
 * so an event the current model's stream holds already (the rest of an upstream packet) is passed on without a
 * promise to a reader that asks `nextReady` (src/http/stream-to-client.ts), where a generator's `yield` cost
 * promises and microtask turns per event. Only a refusal waits, in `next`. Read by one reader, one `next()` at a
 * time; its events, failures, ends and the closing of each model's stream are those a `for await` loop over
 * each model's events, breaking out at a refusal, gives.
 */
class RefusalSplice implements AsyncIterableIterator<SseEvent>, ReadyEventIterator {
  readonly #startNext: StartNextModel;
  readonly #charge: ChargeRefusals | undefined;
  /** The model whose stream goes on now, and its events once read. */
  #hop: NextModelStream;
  #events: AsyncIterator<SseEvent> | undefined;
  #ready: ReadyEventIterator | undefined;
  /** The refused stream, closed when the fallback block's two events have been read. */
  #refused: AsyncIterator<SseEvent> | undefined;
  /** The fallback block's events, handed out before the next model's. */
  #queued: SseEvent[] = [];
  #offset = 0;
  #nextIndex = 0;
  /** The first model's block starts, read only at a refusal (for the index a fallback block takes). */
  #unreadStarts: SseEvent[] = [];
  #started: Partial<Usage> | undefined;
  /** Whether this model's stream started a block of its own before it said how it ended. */
  #outputBegan = false;
  /** A refusal, or the error of an event, that `nextReady` met: `next` deals with it. */
  #held: { refused: Refused } | { error: unknown } | undefined;
  #done = false;

  constructor(first: AsyncIterable<SseEvent>, model: string, startNext: StartNextModel, charge: ChargeRefusals | undefined) {
    this.#hop = { model, events: first };
    this.#startNext = startNext;
    this.#charge = charge;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<SseEvent> {
    return this;
  }

  nextReady(): SseEvent | undefined {
    if (this.#done || this.#held || this.#refused) return this.#queued.shift();
    this.#open();
    const ready = this.#ready;
    if (!ready) return undefined;
    for (;;) {
      let event: SseEvent | undefined;
      try {
        event = ready.nextReady();
      } catch (error) {
        this.#done = true;
        throw error;
      }
      if (event === undefined) return undefined;
      let passed: SseEvent | Refused | undefined;
      try {
        passed = this.#pass(event);
      } catch (error) {
        this.#held = { error };
        return undefined;
      }
      if (passed === undefined) continue;
      if ('refusal' in passed) {
        this.#held = { refused: passed };
        return undefined;
      }
      return passed;
    }
  }

  async next(): Promise<IteratorResult<SseEvent>> {
    for (;;) {
      const queued = this.#queued.shift();
      if (queued) return { done: false, value: queued };
      if (this.#done) return DONE;
      const refused = this.#refused;
      if (refused) {
        // Leaving the refused stream stops it: its message_stop is not the client's.
        this.#refused = undefined;
        try {
          await refused.return?.();
        } catch (error) {
          this.#done = true;
          throw error;
        }
        continue;
      }
      const held = this.#held;
      this.#held = undefined;
      const events = this.#open();
      let passed: SseEvent | Refused | undefined;
      if (held && 'error' in held) return this.#failWith(events, held.error);
      if (held) passed = held.refused;
      else {
        let read: IteratorResult<SseEvent>;
        try {
          read = await events.next();
        } catch (error) {
          this.#done = true;
          throw error;
        }
        if (read.done) {
          this.#done = true;
          return DONE;
        }
        try {
          passed = this.#pass(read.value);
        } catch (error) {
          return this.#failWith(events, error);
        }
      }
      if (passed === undefined) continue;
      if (!('refusal' in passed)) return { done: false, value: passed };
      try {
        const next = await this.#moveOn(passed);
        if (next) return { done: false, value: next };
      } catch (error) {
        return this.#failWith(events, error);
      }
    }
  }

  /** The reader stopped early: the stream read now is closed (nothing when none was read or it is over). */
  async return(): Promise<IteratorResult<SseEvent>> {
    const open = this.#refused ?? this.#events;
    const done = this.#done;
    this.#done = true;
    this.#queued = [];
    if (!done && open) await open.return?.();
    return DONE;
  }

  // The current model's events, asked for at its first read as a for-await loop asks for them.
  #open(): AsyncIterator<SseEvent> {
    if (this.#events) return this.#events;
    const events = this.#hop.events[Symbol.asyncIterator]();
    this.#events = events;
    this.#ready = readyEventsOf(events);
    return events;
  }

  // A failure of the splice's own (an event that does not parse, a next model that throws) closes the stream read.
  async #failWith(events: AsyncIterator<SseEvent>, error: unknown): Promise<never> {
    this.#done = true;
    try {
      await events.return?.();
    } catch {
      // The failure stands.
    }
    throw error;
  }

  /** One event of the current model: what goes on, undefined when it is dropped, or the refusal met. */
  #pass(event: SseEvent): SseEvent | Refused | undefined {
    const spliced = this.#offset > 0;
    const name = sseEventName(event);
    if (name === 'content_block_start') this.#outputBegan = true;
    if (name === 'message_start') {
      // Read once per model: what a refusal's message_delta leaves out, and (spliced) the next model's.
      this.#started = eventPayload<{ message?: { usage?: Partial<Usage> } }>(event).message?.usage;
      if (spliced) return undefined;
    }
    if (name === 'content_block_start' || name === 'content_block_delta' || name === 'content_block_stop') {
      // Before any splice nothing is parsed: a passthrough stream's blocks go on as the bytes that came, and their
      // starts are read for the index a fallback block takes only if a refusal comes.
      if (!spliced) {
        if (name === 'content_block_start') this.#unreadStarts.push(event);
        return event;
      }
      const payload = eventPayload<IndexedPayload>(event);
      payload.index += this.#offset;
      if (name === 'content_block_start') this.#nextIndex = Math.max(this.#nextIndex, payload.index + 1);
      return payload as unknown as SseEvent;
    }
    if (name !== 'message_delta') return event;
    // A raw message_delta that names no refusal and needs no counts filled in is passed on unparsed.
    if (!spliced && 'data' in event && !event.data.includes('"refusal"')) return event;
    const payload = eventPayload<DeltaPayload>(event);
    if (payload.delta?.stop_reason === 'refusal') return { refusal: payload, event };
    return this.#closing(payload, event);
  }

  // A message_delta that goes on: a spliced model's with its counts filled in and the refusals' charges.
  #closing(payload: DeltaPayload, event: SseEvent): SseEvent {
    if (this.#offset === 0) return event;
    const usage = withStartedCounts(payload.usage, this.#started) as Usage;
    payload.usage = this.#charge ? this.#charge(usage) : usage;
    return payload as unknown as SseEvent;
  }

  /** Starts the next model after a refusal: the fallback block's start (its stop queued), or the refusal goes on as the answer. */
  async #moveOn({ refusal, event }: Refused): Promise<SseEvent> {
    const hop = this.#hop;
    const { category, blockedBeforeModel } = refusalOf(refusal.delta?.stop_details);
    const next = await this.#startNext({ model: hop.model, usage: withStartedCounts(refusal.usage, this.#started), category, outputBegan: this.#outputBegan, blockedBeforeModel });
    if (!next) return this.#closing(refusal, event);
    const block = fallbackBlock(hop.model, next.model, category);
    for (const started of this.#unreadStarts) this.#nextIndex = Math.max(this.#nextIndex, peekEventPayload<IndexedPayload>(started).index + 1);
    this.#unreadStarts = [];
    const index = this.#nextIndex;
    const start = { type: 'content_block_start', index, content_block: block, [SERVING_STARTED]: next.started ?? {} };
    this.#queued.push({ type: 'content_block_stop', index } as SseEvent);
    this.#nextIndex = index + 1;
    this.#offset = this.#nextIndex;
    this.#refused = this.#events;
    this.#hop = next;
    this.#events = undefined;
    this.#ready = undefined;
    this.#outputBegan = false;
    return start as unknown as SseEvent;
  }
}

/**
 * The events of `first` (whose model is `model`), with each refusal followed by the next model that answers;
 * `charge` amends the closing usage of a model that answered after a refusal.
 */
export function spliceRefusalFallbacks(first: AsyncIterable<SseEvent>, model: string, startNext: StartNextModel, charge?: ChargeRefusals): AsyncIterableIterator<SseEvent> {
  return new RefusalSplice(first, model, startNext, charge);
}
