/**
 * The pure parts of a tool loop's stream (loop-stream-state.ts): the events the loop writes itself rather
 * than re-indexes from a step (a whole block, the closing `message_delta` and `message_stop`), and how a
 * step's reported usage is laid over what it reported before. No state: the stream state holds it and
 * passes in what each needs (the block's index, the latest `container`, the step's usage so far).
 */
import type { GatewayMetadata, MessageResponse, MessageStreamEvent, ResponseContentBlock, StopReason, Usage } from '#src/api-types.ts';

/** The loop's closing: the response's stop reason, the summed usage with cost, and the metadata on opt-in. */
export interface LoopStreamEnd {
  stopReason: StopReason;
  stopSequence: string | null;
  /** The last step's, when the response ends as that step did. */
  stopDetails?: MessageResponse['stop_details'];
  usage: Usage;
  isByok: boolean;
  metadata?: GatewayMetadata;
}

const USAGE_FIELDS = ['input_tokens', 'output_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'] as const;

/** A block sent whole at client index `index`: its start (carrying all of it) and its stop. */
export function wholeBlockEvents(block: ResponseContentBlock, index: number): MessageStreamEvent[] {
  return [{ type: 'content_block_start', index, content_block: block }, { type: 'content_block_stop', index }];
}

/**
 * The loop's closing events: one `message_delta` with the summed usage (and the latest `container` a step
 * named, which lives on across steps), one `message_stop` with the metadata when asked for.
 */
export function closingEvents(end: LoopStreamEnd, container: MessageResponse['container']): MessageStreamEvent[] {
  const { usage } = end;
  return [
    {
      type: 'message_delta',
      delta: {
        stop_reason: end.stopReason,
        stop_sequence: end.stopSequence,
        ...(end.stopDetails ? { stop_details: end.stopDetails } : {}),
        ...(container ? { container } : {}),
      },
      usage: {
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
        cache_creation_input_tokens: usage.cache_creation_input_tokens ?? null,
        cache_read_input_tokens: usage.cache_read_input_tokens ?? null,
        // The steps' cache writes by lifetime, summed as in the JSON answer: message_start had only the first step's.
        ...(usage.cache_creation ? { cache_creation: usage.cache_creation } : {}),
        // The steps' reasoning, as the JSON answer's usage and a plain translated stream give it.
        ...(usage.output_tokens_details ? { output_tokens_details: usage.output_tokens_details } : {}),
        ...(usage.server_tool_use ? { server_tool_use: usage.server_tool_use } : {}),
        ...(usage.iterations ? { iterations: usage.iterations } : {}),
        cost: usage.cost ?? 0,
        is_byok: end.isByok,
        ...(usage.estimated === true ? { estimated: true as const } : {}),
      },
    },
    { type: 'message_stop', ...(end.metadata ? { gateway_metadata: end.metadata } : {}) },
  ];
}

/**
 * Lays a step's later usage report (its `message_delta`'s over its `message_start`'s) over `usage`, in place:
 * a count given as a number replaces the one before, a count absent or null keeps it.
 */
export function mergeReportedUsage(usage: Partial<Usage>, update: Partial<Usage> | undefined | null): void {
  if (!update) return;
  for (const field of USAGE_FIELDS) {
    const value = update[field];
    if (typeof value === 'number') usage[field] = value;
  }
  if (update.cache_creation) usage.cache_creation = update.cache_creation;
  if (update.server_tool_use) usage.server_tool_use = update.server_tool_use;
  // Compaction, advisor and fallback iterations are billed apart from the step's counts (see stepCost).
  if (update.iterations) usage.iterations = update.iterations;
  if (update.output_tokens_details) usage.output_tokens_details = update.output_tokens_details;
  // Anthropic reports the speed it served at in message_start: it prices the step (see stepCost).
  if (typeof update.speed === 'string') usage.speed = update.speed;
  if (update.estimated === true) usage.estimated = true;
}
