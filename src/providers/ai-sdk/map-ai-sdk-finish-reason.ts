/**
 * Maps the AI SDK's unified finish reason to Anthropic's `stop_reason`. A content filter is a `refusal` with
 * refusal details; `error` and `interrupted` (a stream that ended without its completion signal) are not
 * answers at all but upstream failures, returned as a failure kind for the caller to throw.
 */
import type { LanguageModelV4FinishReason } from '@ai-sdk/provider';
import type { RefusalDetails, StopReason } from '#src/api-types.ts';
import type { UpstreamFailureKind } from '#src/errors.ts';

/** The outcome of a finish reason: a stop reason (with refusal details) or a failure. */
export type MappedFinishReason =
  | { outcome: 'stop'; stopReason: NonNullable<StopReason>; refusal?: RefusalDetails }
  | { outcome: 'failure'; kind: UpstreamFailureKind; detail: string };

/**
 * Maps one finish reason. `stop` is `end_turn` unless the vendor's raw reason says a stop sequence fired
 * (Bedrock's `stop_sequence`); `other` with a raw reason is `end_turn`, the closest Anthropic has to "stopped
 * for a reason of its own".
 * @see https://docs.anthropic.com/en/api/messages (stop_reason)
 */
export function mapAiSdkFinishReason(finishReason: LanguageModelV4FinishReason, vendorLabel: string): MappedFinishReason {
  switch (finishReason.unified) {
    case 'stop':
      return { outcome: 'stop', stopReason: finishReason.raw === 'stop_sequence' ? 'stop_sequence' : 'end_turn' };
    case 'length':
      return { outcome: 'stop', stopReason: 'max_tokens' };
    case 'tool-calls':
      return { outcome: 'stop', stopReason: 'tool_use' };
    case 'content-filter':
      return {
        outcome: 'stop',
        stopReason: 'refusal',
        refusal: {
          type: 'refusal',
          explanation: `${vendorLabel} stopped the answer with its content filter${finishReason.raw ? ` (${finishReason.raw})` : ''}.`,
        },
      };
    case 'other':
      // No raw reason at all means the vendor never said why it stopped: Bedrock reports a stream that ended
      // before `messageStop` this way. That is a truncated answer, not a finished one.
      if (finishReason.raw === undefined) return { outcome: 'failure', kind: 'malformed_response', detail: 'the answer ended without a stop reason' };
      return { outcome: 'stop', stopReason: 'end_turn' };
    case 'error':
      return { outcome: 'failure', kind: 'server_error', detail: `the model stopped with an error (${finishReason.raw ?? 'no reason given'})` };
    case 'interrupted':
      return { outcome: 'failure', kind: 'malformed_response', detail: 'the stream ended without a completion signal' };
    default: {
      const unreachable: never = finishReason.unified;
      throw new Error(`unknown finish reason ${String(unreachable)}`);
    }
  }
}
