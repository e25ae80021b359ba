/**
 * Generations as a Langfuse ingestion batch (`POST /api/public/ingestion`): per generation a `trace-create`
 * (the trace: name, user, session, custom metadata), a `span-create` when the request named a `span_name`,
 * and a `generation-create` with the model, parameters, usage, cost and timing, its attempts in metadata.
 * Trace and observation ids are the caller's (`trace_id`, `parent_span_id`) where given, so the events join
 * the caller's own Langfuse trace; event ids are derived from the generation id, so a retry is deduplicated.
 */
import { generationContent } from '#src/observability/build-generation-record.ts';
import type { TracedItem } from '#src/observability/broadcast/broadcast-types.ts';
import { SPAN_ROLE, spanIdFor } from '#src/observability/broadcast/trace-context.ts';
import { generationTimeline } from '#src/observability/broadcast/generation-timeline.ts';

/** One event of an ingestion batch. */
export interface LangfuseEvent {
  id: string;
  type: 'trace-create' | 'span-create' | 'generation-create';
  timestamp: string;
  body: Record<string, unknown>;
}

const iso = (epochMs: number) => new Date(epochMs).toISOString();

function modelParameters(request: TracedItem['outcome']['request']): Record<string, string | number | boolean> {
  const parameters: Record<string, string | number | boolean> = { max_tokens: request.max_tokens };
  for (const name of ['temperature', 'top_p', 'top_k'] as const) {
    const value = (request as Record<string, unknown>)[name];
    if (typeof value === 'number') parameters[name] = value;
  }
  if (request.stream === true) parameters.stream = true;
  return parameters;
}

/** The events of one generation. */
export function convertToLangfuseEvents(item: TracedItem, options: { includeContent: boolean }): LangfuseEvent[] {
  const { record } = item;
  const { trace } = item;
  const timeline = generationTimeline(record);
  const content = options.includeContent ? generationContent(item.outcome) : null;
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
  let parent = trace.externalParentId;
  if (trace.spanName) {
    const spanId = spanIdFor(record.id, SPAN_ROLE.span);
    events.push({
      id: `${record.id}-span`,
      type: 'span-create',
      timestamp: created,
      body: { id: spanId, traceId: trace.externalTraceId, name: trace.spanName, startTime: created, endTime: iso(timeline.generation.end), ...(parent ? { parentObservationId: parent } : {}) },
    });
    parent = spanId;
  }
  const failed = record.status === 'error' || record.status === 'cancelled';
  events.push({
    id: `${record.id}-generation`,
    type: 'generation-create',
    timestamp: created,
    body: {
      id: record.id,
      traceId: trace.externalTraceId,
      name: trace.generationName ?? `chat ${record.requestedModel}`,
      startTime: created,
      endTime: iso(timeline.generation.end),
      ...(timeline.firstByteAt !== null ? { completionStartTime: iso(timeline.firstByteAt) } : {}),
      model: record.model ?? record.requestedModel,
      modelParameters: modelParameters(item.outcome.request),
      usageDetails: {
        input: record.inputTokens,
        output: record.outputTokens,
        cache_read_input_tokens: record.cacheReadTokens,
        cache_creation_input_tokens: record.cacheWriteTokens,
        ...(record.reasoningTokens > 0 ? { reasoning_tokens: record.reasoningTokens } : {}),
      },
      costDetails: { total: record.cost },
      metadata: { ...trace.metadata, provider: record.provider, requested_model: record.requestedModel, is_byok: record.isByok, status: record.status, attempts: record.attempts },
      level: failed ? 'ERROR' : record.status === 'refusal' ? 'WARNING' : 'DEFAULT',
      ...(record.errorMessage ? { statusMessage: record.errorMessage } : record.stopReason ? { statusMessage: record.stopReason } : {}),
      ...(parent ? { parentObservationId: parent } : {}),
      ...(content ? { input: content.prompt, output: content.completion } : {}),
    },
  });
  return events;
}
