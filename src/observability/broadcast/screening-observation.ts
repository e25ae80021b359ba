/**
 * The `moderation` plugin's screening by a catalog model (`engine: model`) as trace destinations show it: a
 * model call of its own, made before the request's model was called and charged to the key on its own, so it
 * is a child of the request's observation with its model, tokens, cost and window. On OTLP it is a CLIENT span
 * under the generation span, named as the GenAI conventions name an inference call (`chat <vendor model id>`,
 * told from the request's own calls by `switchboard.plugin`); in Langfuse a `generation-create` named
 * `moderation <model>` under the request's observation. Langfuse sums
 * a trace's generation costs: the screening's event carries the screening's cost, and the request's own
 * generation the rest of what the key was charged (the record's cost includes the screening), so the sum is
 * the charge, the screening counted once. The generation span keeps the whole charge: OTLP backends sum
 * nothing, and a span's cost there is the request's total as the record shows it.
 */
import type { GenerationRecord } from '#src/observability/build-generation-record.ts';
import type { TracedItem } from '#src/observability/broadcast/broadcast-types.ts';
import type { GenerationTimeline, TimeWindow } from '#src/observability/broadcast/generation-timeline.ts';
import { iso, usageDetails, type LangfuseEvent } from '#src/observability/broadcast/langfuse-step-events.ts';
import { CHAT_OPERATION, genAiProviderName, type GatewaySpanAttributes } from '#src/observability/broadcast/genai-attributes.ts';
import type { ScreeningCharge } from '#src/plugins/moderation/moderation-verdict.ts';
import { isByok } from '#src/routing/attempt.ts';

/** The plugin a screening belongs to, as its span's `switchboard.plugin` and its Langfuse `metadata.plugin`. */
export const SCREENING_PLUGIN = 'moderation';

/** The name of the screening's Langfuse observation: `moderation <model>`. */
export function screeningName(charge: ScreeningCharge): string {
  return `${SCREENING_PLUGIN} ${charge.attempt.model}`;
}

/**
 * The screening span's attributes, in the GenAI conventions the request's spans use: the vendor's model id
 * asked for and the model its answer named, the catalog slug (`switchboard.model`), the provider, the tokens
 * (input counts cached input, as on the generation span), the request's conversation id, and the gateway's
 * own cost, BYOK flag and plugin. The screening's own request is the plugin's, not the client's: none of the
 * client's request parameters applies to it.
 */
export function screeningSpanAttributes(charge: ScreeningCharge, conversationId: string | null): GatewaySpanAttributes {
  const { usage, attempt } = charge;
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  // Literal keys, not `[GEN_AI.…]`: see GatewaySpanAttributes.
  const attributes: GatewaySpanAttributes = {
    'gen_ai.operation.name': CHAT_OPERATION,
    'gen_ai.provider.name': genAiProviderName(attempt.provider.slug),
    'gen_ai.request.model': attempt.upstreamModel,
    ...(charge.responseModel ? { 'gen_ai.response.model': charge.responseModel } : {}),
    'switchboard.model': attempt.model,
    'gen_ai.usage.input_tokens': usage.input_tokens + cacheRead + cacheWrite,
    'gen_ai.usage.output_tokens': usage.output_tokens,
    'gen_ai.usage.cache_read.input_tokens': cacheRead,
    'gen_ai.usage.cache_write.input_tokens': cacheWrite,
    'switchboard.plugin': SCREENING_PLUGIN,
    'switchboard.cost_usd': charge.cost,
    'switchboard.is_byok': isByok(attempt),
  };
  // An inference call for the request's conversation: the conventions ask for its id where one is at hand.
  if (conversationId) attributes['gen_ai.conversation.id'] = conversationId;
  return attributes;
}

/**
 * What the request's own Langfuse generation costs: the record's cost less the screening's, which its own
 * event carries. Never below zero (the two were summed in floating point).
 */
export function requestOwnCost(record: Pick<GenerationRecord, 'cost'>, charge: ScreeningCharge | null | undefined): number {
  return charge ? Math.max(0, record.cost - charge.cost) : record.cost;
}

/**
 * The screening's Langfuse `generation-create` under the request's observation (`parentId`), or none without
 * a screening. Its id is derived from the generation id, so a retried delivery is deduplicated.
 */
export function screeningEvent(item: TracedItem, timeline: GenerationTimeline, parentId: string): LangfuseEvent[] {
  const charge = item.outcome.screening;
  const window: TimeWindow | null = timeline.screening;
  if (!charge || !window) return [];
  const { record, trace } = item;
  const id = `${record.id}-${SCREENING_PLUGIN}`;
  const { usage } = charge;
  const tokens = { input: usage.input_tokens, output: usage.output_tokens, cacheRead: usage.cache_read_input_tokens ?? 0, cacheWrite: usage.cache_creation_input_tokens ?? 0, reasoning: 0 };
  const body = {
    id,
    traceId: trace.externalTraceId,
    parentObservationId: parentId,
    name: screeningName(charge),
    startTime: iso(window.start),
    endTime: iso(window.end),
    // The vendor's model, as the request's generation names it; the slug is `metadata.gateway_model`.
    model: charge.responseModel ?? charge.attempt.upstreamModel,
    usageDetails: usageDetails(tokens),
    costDetails: { total: charge.cost },
    metadata: { ...trace.metadata, plugin: SCREENING_PLUGIN, provider: charge.attempt.provider.slug, gateway_model: charge.attempt.model, is_byok: isByok(charge.attempt) },
    // A screening is recorded only once answered: a served, charged model call.
    level: 'DEFAULT',
  };
  return [{ id, type: 'generation-create', timestamp: iso(timeline.generation.start), body }];
}
