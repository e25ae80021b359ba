/**
 * A generation as a webhook delivery (`GenerationWebhookEvent` in the spec): the record's API view, its trace
 * context, and the prompt and completion only for a destination that opted in.
 */
import type { GenerationWebhookEvent } from '#src/api-types.ts';
import { generationContent } from '#src/observability/build-generation-record.ts';
import { toGenerationView } from '#src/observability/generation-view.ts';
import type { TracedItem } from '#src/observability/broadcast/broadcast-types.ts';
import { ownSpanId, SPAN_ROLE } from '#src/observability/broadcast/trace-context.ts';

/** Builds the webhook body of one generation. */
export function convertToWebhookEvent(item: TracedItem, options: { includeContent: boolean; now: Date }): GenerationWebhookEvent {
  const { trace } = item;
  const data = toGenerationView(item.record, { withContent: false });
  if (options.includeContent) {
    const content = generationContent(item.outcome);
    data.prompt = content.prompt as NonNullable<typeof data.prompt>;
    if (content.completion) data.completion = content.completion as NonNullable<typeof data.completion>;
  }
  return {
    type: 'generation.completed',
    id: item.record.id,
    created_at: options.now.toISOString(),
    trace: {
      trace_id: trace.traceId,
      span_id: ownSpanId(trace.own, SPAN_ROLE.generation),
      parent_span_id: trace.parentSpanId,
      ...(trace.traceName ? { trace_name: trace.traceName } : {}),
      ...(trace.spanName ? { span_name: trace.spanName } : {}),
      ...(trace.generationName ? { generation_name: trace.generationName } : {}),
      metadata: trace.metadata,
    },
    data,
  };
}
