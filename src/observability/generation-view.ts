/**
 * The wire shape (`Generation` in the spec) of a stored generation record. Prompt and completion appear only
 * when stored and `withContent` is asked for (`GET /generations/{id}`, destinations that opt in).
 */
import type { Generation, GenerationAttempt } from '#src/api-types.ts';
import type { GenerationRecord } from '#src/observability/build-generation-record.ts';

/** A record as the API shows it. */
export function toGenerationView(record: GenerationRecord, options: { withContent: boolean }): Generation {
  const view: Generation = {
    id: record.id,
    created_at: record.createdAt.toISOString(),
    workspace_id: record.workspaceId,
    key_hash: record.keyHash,
    requested_model: record.requestedModel,
    model: record.model,
    response_model: record.responseModel,
    provider: record.provider,
    provider_name: record.providerName,
    is_byok: record.isByok,
    stream: record.stream,
    status: record.status,
    http_status: record.httpStatus,
    stop_reason: record.stopReason,
    error: record.errorType === null ? null : { type: record.errorType, message: record.errorMessage ?? '' },
    usage: {
      input_tokens: record.inputTokens,
      output_tokens: record.outputTokens,
      cache_read_input_tokens: record.cacheReadTokens,
      cache_creation_input_tokens: record.cacheWriteTokens,
      reasoning_tokens: record.reasoningTokens,
    },
    usage_estimated: record.usageEstimated,
    cost: record.cost,
    time_to_first_byte_ms: record.timeToFirstByteMs,
    total_ms: record.totalMs,
    session_id: record.sessionId,
    user: record.userId,
    trace: (record.trace as Generation['trace']) ?? null,
    attempts: record.attempts as GenerationAttempt[],
    tool_steps: (record.toolSteps as Generation['tool_steps']) ?? null,
    moderation: (record.moderation as Generation['moderation']) ?? null,
  };
  if (options.withContent && record.prompt !== null) view.prompt = record.prompt as NonNullable<Generation['prompt']>;
  if (options.withContent && record.completion !== null) view.completion = record.completion as NonNullable<Generation['completion']>;
  return view;
}
