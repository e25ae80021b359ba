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
import { eventPayload, sseEventName, type SseEvent } from '#src/providers/provider-adapter.ts';
import { fallbackBlock } from '#src/messages/refused-hops.ts';
import { refusalCategoryOf } from '#src/messages/refusal-billing.ts';

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

/**
 * The events of `first` (whose model is `model`), with each refusal followed by the next model that answers;
 * `charge` amends the closing usage of a model that answered after a refusal.
 */
export async function* spliceRefusalFallbacks(first: AsyncIterable<SseEvent>, model: string, startNext: StartNextModel, charge?: ChargeRefusals): AsyncGenerator<SseEvent> {
  let current: NextModelStream | null = { model, events: first };
  let offset = 0;
  let nextIndex = 0;
  let started: Partial<Usage> | undefined;
  while (current) {
    const spliced = offset > 0;
    const hop: NextModelStream = current;
    current = null;
    // Whether this model's stream started a block of its own before it said how it ended.
    let outputBegan = false;
    for await (const event of hop.events) {
      const name = sseEventName(event);
      if (name === 'content_block_start') outputBegan = true;
      if (name === 'message_start') {
        // Read once per model: what a refusal's message_delta leaves out, and (spliced) the next model's.
        started = eventPayload<{ message?: { usage?: Partial<Usage> } }>(event).message?.usage;
        if (spliced) continue;
      }
      if (name === 'content_block_start' || name === 'content_block_delta' || name === 'content_block_stop') {
        // Before any splice only a block's start is read (for the index a fallback block takes): a passthrough
        // stream's deltas go on as the bytes that came, unparsed.
        if (!spliced) {
          if (name === 'content_block_start') nextIndex = Math.max(nextIndex, eventPayload<IndexedPayload>(event).index + 1);
          yield event;
          continue;
        }
        const payload = eventPayload<IndexedPayload>(event);
        payload.index += offset;
        if (name === 'content_block_start') nextIndex = Math.max(nextIndex, payload.index + 1);
        yield payload as unknown as SseEvent;
        continue;
      }
      // A raw message_delta that names no refusal and needs no counts filled in is passed on unparsed.
      if (name === 'message_delta' && !spliced && 'data' in event && !event.data.includes('"refusal"')) {
        yield event;
        continue;
      }
      if (name === 'message_delta') {
        const payload = eventPayload<DeltaPayload>(event);
        if (payload.delta?.stop_reason === 'refusal') {
          const category = refusalCategoryOf(payload.delta.stop_details);
          current = await startNext({ model: hop.model, usage: withStartedCounts(payload.usage, started), category, outputBegan });
          if (current) {
            // Leaving the loop stops the refused stream: its message_stop is not the client's.
            const block = fallbackBlock(hop.model, current.model, category);
            const start = { type: 'content_block_start', index: nextIndex, content_block: block, [SERVING_STARTED]: current.started ?? {} };
            yield start as unknown as SseEvent;
            yield { type: 'content_block_stop', index: nextIndex } as SseEvent;
            nextIndex += 1;
            offset = nextIndex;
            break;
          }
        }
        if (spliced) {
          const usage = withStartedCounts(payload.usage, started) as Usage;
          payload.usage = charge ? charge(usage) : usage;
          yield payload as unknown as SseEvent;
          continue;
        }
      }
      yield event;
    }
  }
}
