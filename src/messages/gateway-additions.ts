/**
 * The gateway's own additions to an upstream answer: the model slug, the provider's display name, the cost
 * and whether the caller's key paid, and (on opt-in) the routing metadata. For streams only the three
 * events that carry these are amended, as objects (an upstream's text is parsed for it), by a synchronous
 * stage (src/providers/event-stages.ts); every other event passes through byte for byte.
 */
import type { GatewayMetadata, MessageDeltaEvent, MessageResponse, MessageStartEvent, MessageStopEvent, Usage } from '#src/api-types.ts';
import { eventPayload, sseEventName, type SseEvent } from '#src/providers/provider-adapter.ts';
import { staged, type EventStage } from '#src/providers/event-stages.ts';

/** Normalized usage in Anthropic's convention, as the cost function reads it. */
export type UsageForCost = Pick<Usage, 'input_tokens' | 'output_tokens' | 'cache_creation_input_tokens' | 'cache_read_input_tokens' | 'cache_creation' | 'iterations' | 'server_tool_use' | 'search_context_size' | 'speed'>;

/** What the additions need to know about the attempt that answered. */
export interface AdditionsContext {
  model: string;
  providerName: string;
  isByok: boolean;
  /** USD the key is charged for the answer: its usage on the serving endpoint, plus what was charged before it (the moderation screening). */
  priceUsage(usage: UsageForCost): number;
  /** Built lazily at the very end, so `generation_time` covers the whole answer. */
  metadata?: () => GatewayMetadata;
}

/** Adds the gateway's fields to a complete message. */
export function finalizeMessage(message: MessageResponse, context: AdditionsContext): MessageResponse {
  // Copies amended by assignment rather than `{ ...message, model, … }`: the same keys in the same order, but V8
  // defines each property written after a spread with a runtime call (~1,300 instructions each on Node 24).
  const usage: Usage = { ...message.usage };
  usage.service_tier = message.usage.service_tier ?? 'standard';
  usage.cost = context.priceUsage(usage);
  usage.is_byok = context.isByok;
  const finalized: MessageResponse = { ...message };
  finalized.model = context.model;
  finalized.provider = context.providerName;
  finalized.usage = usage;
  if (context.metadata) finalized.gateway_metadata = context.metadata();
  return finalized;
}

interface StreamUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation?: Usage['cache_creation'];
  iterations?: Usage['iterations'];
  server_tool_use?: Usage['server_tool_use'];
  search_context_size?: Usage['search_context_size'];
  speed?: Usage['speed'];
}

// Each count by name, not in a loop over the names: a store with a computed key goes through V8's generic
// (megamorphic) keyed store, several hundred instructions each, twice per stream.
function merge(total: StreamUsage, update: StreamUsage | undefined): void {
  if (!update) return;
  if (typeof update.input_tokens === 'number') total.input_tokens = update.input_tokens;
  if (typeof update.output_tokens === 'number') total.output_tokens = update.output_tokens;
  if (typeof update.cache_creation_input_tokens === 'number') total.cache_creation_input_tokens = update.cache_creation_input_tokens;
  if (typeof update.cache_read_input_tokens === 'number') total.cache_read_input_tokens = update.cache_read_input_tokens;
  if (update.cache_creation) total.cache_creation = update.cache_creation;
  // Anthropic's per-iteration usage (a compaction iteration is billed apart from the answer's counts).
  if (update.iterations) total.iterations = update.iterations;
  // Anthropic's server tool counters, cumulative like the token counts: the search count arrives in message_delta.
  if (update.server_tool_use) total.server_tool_use = update.server_tool_use;
  // Perplexity's, in its final usage: its request fee is billed by it.
  if (update.search_context_size) total.search_context_size = update.search_context_size;
  // Anthropic's, in message_start's usage: a fast attempt served at standard speed costs the standard prices.
  if (update.speed) total.speed = update.speed;
}

/**
 * The stage that amends an Anthropic event stream with the gateway's fields. The three events it amends come
 * out as typed objects (the SSE writer serialises them); every other event passes as it came, an upstream's
 * text untouched. One per stream: it sums the usage the stream reports.
 */
export function amendStage(context: AdditionsContext): EventStage {
  const usage: StreamUsage = {};
  return {
    event(event) {
      switch (sseEventName(event)) {
        case 'message_start': {
          const payload = eventPayload<MessageStartEvent>(event);
          payload.message.model = context.model;
          payload.message.provider = context.providerName;
          merge(usage, payload.message.usage);
          return payload;
        }
        case 'message_delta': {
          const payload = eventPayload<MessageDeltaEvent>(event);
          merge(usage, payload.usage);
          // Amended by assignment, not `{ ...payload.usage, … }` (see finalizeMessage): the same keys, in order.
          const amended = { ...payload.usage };
          amended.output_tokens = usage.output_tokens ?? 0;
          const priced: UsageForCost = {
            input_tokens: usage.input_tokens ?? 0,
            output_tokens: usage.output_tokens ?? 0,
            cache_creation_input_tokens: usage.cache_creation_input_tokens ?? null,
            cache_read_input_tokens: usage.cache_read_input_tokens ?? null,
            cache_creation: usage.cache_creation ?? null,
          };
          if (usage.iterations) priced.iterations = usage.iterations;
          if (usage.server_tool_use) priced.server_tool_use = usage.server_tool_use;
          if (usage.search_context_size) priced.search_context_size = usage.search_context_size;
          if (usage.speed) priced.speed = usage.speed;
          amended.cost = context.priceUsage(priced);
          amended.is_byok = context.isByok;
          payload.usage = amended;
          return payload;
        }
        case 'message_stop': {
          if (!context.metadata) return event;
          const payload = eventPayload<MessageStopEvent>(event);
          payload.gateway_metadata = context.metadata();
          return payload;
        }
        default:
          return event;
      }
    },
  };
}

/** The events with `amendStage` added to their stages. */
export function amendStream(events: AsyncIterable<SseEvent>, context: AdditionsContext): AsyncIterable<SseEvent> {
  return staged(events, amendStage(context));
}
