/**
 * What one `POST /messages` request leaves behind, as plain data collected at the route: who asked, what was
 * asked, how it was routed, what came back and when. Everything here is a reference to data the request
 * already has; the record and the broadcast payloads are derived from it later, off the request path.
 */
import type { MessageRequest, Usage } from '#src/api-types.ts';
import type { AttemptRecord } from '#src/messages/run-attempts.ts';
import type { Attempt } from '#src/routing/attempt.ts';
import type { StepRecord, StepUnderWay } from '#src/messages/tool-loop/loop-tally.ts';
import type { ScreeningCharge } from '#src/plugins/moderation/moderation-verdict.ts';

/** How a request ended, as stored in the record (`GenerationStatus` in the spec). */
export type GenerationOutcomeStatus = 'success' | 'refusal' | 'error' | 'cancelled';

/** The answer's usage as the client saw it (`usage.cost` included). */
export type AnswerUsage = Partial<Pick<Usage, 'input_tokens' | 'output_tokens' | 'cache_creation_input_tokens' | 'cache_read_input_tokens' | 'cost' | 'output_tokens_details' | 'estimated'>>;

/** The input of the record builder. */
export interface GenerationOutcome {
  id: string;
  /** Epoch milliseconds when the request arrived. */
  startedAt: number;
  accountId: string;
  workspaceId: string;
  keyHash: string;
  /** The validated request body, by reference (never mutated downstream). */
  request: MessageRequest;
  sessionId: string | null;
  /** The W3C `traceparent` header, as sent. */
  traceparent: string | null;
  stream: boolean;
  strategy: string | null;
  /** Every attempt's record, as the attempt runner made it. */
  attempts: readonly AttemptRecord[];
  /** The attempt that answered. */
  served: Attempt | null;
  /** The server-side tool loop's steps that finished (each served and charged), or null without a loop. */
  steps: readonly StepRecord[] | null;
  /** A streamed loop's step whose answer was arriving when the request ended (see `chargedUsage`). */
  stepUnderWay?: StepUnderWay | null;
  /** The moderation plugin's screening call by a catalog model (charged to the key), when one was answered. */
  screening?: ScreeningCharge | null;
  usage: AnswerUsage | null;
  stopReason: string | null;
  /** The id of the message the client got (`msg_…`); null without an answer. */
  responseId: string | null;
  /** The answer's content blocks: always for JSON, for a stream only when content is captured. */
  completion: readonly unknown[] | null;
  status: GenerationOutcomeStatus;
  httpStatus: number;
  error: { type: string; message: string } | null;
  timeToFirstByteMs: number | null;
  /**
   * Characters of text, thinking and tool input a translated stream sent the client (its deltas built by the
   * gateway; an Anthropic-format upstream's, passed on as its bytes, are not read): the output estimate of a
   * stream that ended before the vendor's counts. 0 for JSON answers.
   */
  streamedCharacters?: number;
  totalMs: number;
}
