/**
 * The server-side tool loop's finished steps as Langfuse `generation-create` events under the request's
 * observation: each step was one model call, served and charged on its own, so each carries its own model,
 * usage, cost and window. Langfuse sums a trace's generation costs; the request itself is then a span, so no
 * cost is counted twice. Ids are derived from the generation id and the step number, so a retried delivery
 * is deduplicated.
 */
import { toGenerationAttempt } from '#src/messages/gateway-metadata.ts';
import type { StepRecord } from '#src/messages/tool-loop/loop-tally.ts';
import { isByok } from '#src/routing/attempt.ts';
import type { TracedItem } from '#src/observability/broadcast/broadcast-types.ts';
import { stepWindows, type GenerationTimeline } from '#src/observability/broadcast/generation-timeline.ts';
import { stepResponseModel } from '#src/observability/broadcast/response-model.ts';

/** One event of an ingestion batch. */
export interface LangfuseEvent {
  id: string;
  type: 'trace-create' | 'span-create' | 'generation-create';
  timestamp: string;
  body: Record<string, unknown>;
}

/** Langfuse `usageDetails` keys for token counts (Anthropic's cache names, as the request's observation uses). */
export interface TokenCounts {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
}

/** Epoch milliseconds as Langfuse's ISO 8601 timestamps. */
export const iso = (epochMs: number) => new Date(epochMs).toISOString();

/** The `usageDetails` of some token counts; reasoning only when there was any. */
export function usageDetails(tokens: TokenCounts): Record<string, number> {
  return {
    input: tokens.input,
    output: tokens.output,
    cache_read_input_tokens: tokens.cacheRead,
    cache_creation_input_tokens: tokens.cacheWrite,
    ...(tokens.reasoning > 0 ? { reasoning_tokens: tokens.reasoning } : {}),
  };
}

function stepTokens(step: StepRecord): TokenCounts {
  const { usage } = step;
  return {
    input: usage.input_tokens,
    output: usage.output_tokens,
    cacheRead: usage.cache_read_input_tokens ?? 0,
    cacheWrite: usage.cache_creation_input_tokens ?? 0,
    reasoning: usage.output_tokens_details?.thinking_tokens ?? 0,
  };
}

/** The observation id of a step: the generation id and the step number. */
export function stepObservationId(generationId: string, step: number): string {
  return `${generationId}-step-${step}`;
}

/**
 * One `generation-create` per finished step, children of the request's observation (`parentId`). The
 * request's first byte is the completion start of the step whose window holds it, if any does.
 */
export function stepEvents(item: TracedItem, timeline: GenerationTimeline, parentId: string, modelParameters: Record<string, string | number | boolean>): LangfuseEvent[] {
  const steps = item.outcome.steps ?? [];
  const windows = stepWindows(timeline, item.outcome.attempts, steps);
  const { record, trace } = item;
  const firstByteAt = timeline.firstByteAt;
  let firstByteTaken = false;
  return steps.map((step, position) => {
    const window = windows[position] ?? timeline.generation;
    const id = stepObservationId(record.id, step.step);
    const holdsFirstByte = firstByteAt !== null && !firstByteTaken && firstByteAt >= window.start && firstByteAt <= window.end;
    firstByteTaken ||= holdsFirstByte;
    return {
      id,
      type: 'generation-create',
      timestamp: iso(timeline.generation.start),
      body: {
        id,
        traceId: trace.externalTraceId,
        parentObservationId: parentId,
        name: `step ${step.step}`,
        startTime: iso(window.start),
        endTime: iso(Math.max(window.start, window.end)),
        ...(holdsFirstByte ? { completionStartTime: iso(firstByteAt) } : {}),
        // The vendor's model, as Langfuse's model definitions name it; the catalog slug is `metadata.gateway_model`.
        model: stepResponseModel(step) ?? step.attempt.upstreamModel,
        modelParameters,
        usageDetails: usageDetails(stepTokens(step)),
        costDetails: { total: step.cost },
        metadata: {
          ...trace.metadata,
          step: step.step,
          provider: step.attempt.provider.slug,
          gateway_model: step.attempt.model,
          is_byok: isByok(step.attempt),
          stop_reason: step.stopReason,
          tools_called: step.toolsCalled,
          tools_disabled: step.toolsDisabled,
          ...(step.stoppedBy ? { stopped_by: step.stoppedBy } : {}),
          ...(step.usage.estimated === true ? { usage_estimated: true } : {}),
          attempts: step.records.map(toGenerationAttempt),
        },
        // A step is recorded only once it finished: a served, charged model call.
        level: 'DEFAULT',
      },
    };
  });
}
