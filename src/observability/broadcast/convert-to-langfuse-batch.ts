/**
 * Generations as a Langfuse ingestion batch (`POST /api/public/ingestion`): per generation a `trace-create`
 * (the trace: name, user, session, custom metadata), a `span-create` when the request named a `span_name`,
 * and a `generation-create` with the model, parameters, usage, cost and timing, its attempts in metadata.
 * A request that ran the server-side tool loop is a `span-create` instead (its totals in metadata) with one
 * `generation-create` per finished step under it (langfuse-step-events.ts): Langfuse sums the costs of a
 * trace's generations, so each model call is counted once. A screening by the `moderation` plugin's catalog
 * model is one more `generation-create` under the request's observation, carrying the screening's cost,
 * which the request's own generation then leaves out (screening-observation.ts).
 * Trace and observation ids are the caller's (`trace_id`, `parent_span_id`) where given, so the events join
 * the caller's own Langfuse trace; event ids are derived from the generation id, so a retry is deduplicated.
 */
import { generationContent, type GenerationContent } from '#src/observability/build-generation-record.ts';
import type { TracedItem } from '#src/observability/broadcast/broadcast-types.ts';
import { ownSpanId, SPAN_ROLE } from '#src/observability/broadcast/trace-context.ts';
import { generationTimeline, type GenerationTimeline } from '#src/observability/broadcast/generation-timeline.ts';
import { iso, stepEvents, usageDetails, type LangfuseEvent } from '#src/observability/broadcast/langfuse-step-events.ts';
import { requestOwnCost, screeningEvent } from '#src/observability/broadcast/screening-observation.ts';
import { generationResponseModel } from '#src/observability/broadcast/response-model.ts';

export type { LangfuseEvent } from '#src/observability/broadcast/langfuse-step-events.ts';

function modelParameters(request: TracedItem['outcome']['request']): Record<string, string | number | boolean> {
  const parameters: Record<string, string | number | boolean> = { max_tokens: request.max_tokens };
  for (const name of ['temperature', 'top_p', 'top_k'] as const) {
    const value = (request as Record<string, unknown>)[name];
    if (typeof value === 'number') parameters[name] = value;
  }
  if (request.stream === true) parameters.stream = true;
  return parameters;
}

/** The events above the request's observation (the trace, the `span_name` span), and that observation's parent. */
function traceEvents(item: TracedItem, timeline: GenerationTimeline, content: GenerationContent | null): { events: LangfuseEvent[]; parent: string | null } {
  const { record, trace } = item;
  const created = iso(timeline.generation.start);
  const events: LangfuseEvent[] = [
    {
      id: `${record.id}-trace`,
      type: 'trace-create',
      timestamp: created,
      body: {
        id: trace.externalTraceId,
        timestamp: created,
        ...(trace.traceName ? { name: trace.traceName } : {}),
        ...(record.userId ? { userId: record.userId } : {}),
        ...(record.sessionId ? { sessionId: record.sessionId } : {}),
        metadata: trace.metadata,
        ...(content ? { input: content.prompt, output: content.completion } : {}),
      },
    },
  ];
  const parent = trace.externalParentId;
  if (!trace.spanName) return { events, parent };
  const spanId = ownSpanId(trace.own, SPAN_ROLE.span);
  events.push({
    id: `${record.id}-span`,
    type: 'span-create',
    timestamp: created,
    body: { id: spanId, traceId: trace.externalTraceId, name: trace.spanName, startTime: created, endTime: iso(timeline.generation.end), ...(parent ? { parentObservationId: parent } : {}) },
  });
  return { events, parent: spanId };
}

/**
 * The request's own observation: a generation with the request's totals, or, when a tool loop finished
 * steps, a span showing the totals in metadata with the steps' generations under it (the steps are the model
 * calls and carry the costs, which Langfuse sums over a trace's generations).
 */
function requestEvents(item: TracedItem, timeline: GenerationTimeline, content: GenerationContent | null, parent: string | null): LangfuseEvent[] {
  const { record, trace } = item;
  const created = iso(timeline.generation.start);
  const failed = record.status === 'error' || record.status === 'cancelled';
  const parameters = modelParameters(item.outcome.request);
  const usage = usageDetails({ input: record.inputTokens, output: record.outputTokens, cacheRead: record.cacheReadTokens, cacheWrite: record.cacheWriteTokens, reasoning: record.reasoningTokens });
  const head = { id: record.id, traceId: trace.externalTraceId, name: trace.generationName ?? `chat ${record.requestedModel}`, startTime: created, endTime: iso(timeline.generation.end) };
  const tail = {
    level: failed ? 'ERROR' : record.status === 'refusal' ? 'WARNING' : 'DEFAULT',
    ...(record.errorMessage ? { statusMessage: record.errorMessage } : record.stopReason ? { statusMessage: record.stopReason } : {}),
    ...(parent ? { parentObservationId: parent } : {}),
    ...(content ? { input: content.prompt, output: content.completion } : {}),
  };
  // The vendor's model (what its answer named, else the id the gateway asked it for), as Langfuse's model
  // definitions name models; the catalog slug that served is `metadata.gateway_model`.
  const model = generationResponseModel(item.outcome) ?? item.outcome.served?.upstreamModel ?? record.model ?? record.requestedModel;
  // Langfuse's usageDetails has no flag for counts the gateway estimated: metadata says so.
  const described = { provider: record.provider, requested_model: record.requestedModel, gateway_model: record.model, is_byok: record.isByok, status: record.status, ...(record.usageEstimated ? { usage_estimated: true } : {}) };
  const steps = item.outcome.steps ?? [];
  const screening = screeningEvent(item, timeline, record.id);
  if (steps.length > 0) {
    const metadata = { ...trace.metadata, ...described, model, steps: steps.length, usage, cost: record.cost, attempts: record.attempts };
    return [{ id: `${record.id}-generation`, type: 'span-create', timestamp: created, body: { ...head, metadata, ...tail } }, ...screening, ...stepEvents(item, timeline, record.id, parameters)];
  }
  const body = {
    ...head,
    ...(timeline.firstByteAt !== null ? { completionStartTime: iso(timeline.firstByteAt) } : {}),
    model,
    modelParameters: parameters,
    usageDetails: usage,
    // The screening's event carries its cost: this one the rest, so Langfuse's sum is the key's charge.
    costDetails: { total: requestOwnCost(record, item.outcome.screening) },
    // With a screening, the whole charge stays readable here (the spec's `metadata.cost`).
    metadata: { ...trace.metadata, ...described, ...(screening.length > 0 ? { cost: record.cost } : {}), attempts: record.attempts },
    ...tail,
  };
  return [{ id: `${record.id}-generation`, type: 'generation-create', timestamp: created, body }, ...screening];
}

/** The events of one generation. */
export function convertToLangfuseEvents(item: TracedItem, options: { includeContent: boolean }): LangfuseEvent[] {
  const timeline = generationTimeline(item.record, item.outcome.screening);
  const content = options.includeContent ? generationContent(item.outcome) : null;
  const above = traceEvents(item, timeline, content);
  return [...above.events, ...requestEvents(item, timeline, content, above.parent)];
}
