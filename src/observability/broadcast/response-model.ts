/**
 * The model the vendor said answered, as trace destinations report it: OpenTelemetry's
 * `gen_ai.response.model` ("the name of the model that generated the response") and Langfuse's `model`. It is
 * the answer's own `model` (a dated snapshot such as `claude-sonnet-4-5-20250929` for an alias), kept in the
 * attempt's record; the catalog slug is the gateway's name for the route, not the vendor's for the model.
 * @see https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/
 */
import type { AttemptRecord } from '#src/messages/run-attempts.ts';
import type { StepRecord } from '#src/messages/tool-loop/loop-tally.ts';
import type { Attempt } from '#src/routing/attempt.ts';

/** The model `served`'s latest answer in `records` named, or undefined when it named none. */
function answeredModel(records: readonly AttemptRecord[], served: Attempt | null): string | undefined {
  if (!served) return undefined;
  for (let index = records.length - 1; index >= 0; index -= 1) {
    const record = records[index] as AttemptRecord;
    if (record.attempt === served && record.responseModel !== undefined) return record.responseModel;
  }
  return undefined;
}

/**
 * The vendor's model for a whole generation: what the served attempt's answer named (with the tool loop, the
 * last step's); undefined without an answer or when it named none.
 */
export function generationResponseModel(outcome: { attempts: readonly AttemptRecord[]; served: Attempt | null }): string | undefined {
  return answeredModel(outcome.attempts, outcome.served);
}

/** The vendor's model for one tool-loop step: what its answer named, or undefined when it named none. */
export function stepResponseModel(step: Pick<StepRecord, 'records' | 'attempt'>): string | undefined {
  return answeredModel(step.records, step.attempt);
}
