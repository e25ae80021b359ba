/**
 * A tool loop's `usage.iterations`: every model call the loop made, one entry each, in the order they ran (each
 * step's refused attempts, then the attempt that served it), built as a plain request's are
 * (src/messages/call-iterations.ts). Pure functions of the loop's steps.
 */
import { callIterations, type ModelCall, type UsageIteration } from '#src/messages/call-iterations.ts';
import type { StepRecord } from './loop-tally.ts';

function callsOf(steps: readonly StepRecord[]): ModelCall[] {
  const calls: ModelCall[] = [];
  for (const step of steps) {
    for (const refusal of step.refusals ?? []) calls.push({ model: refusal.attempt.model, usage: refusal.usage });
    calls.push({ model: step.attempt.model, usage: step.usage });
  }
  return calls;
}

/** The loop's iterations: a `fallback_message` last when a refusal moved a step on to the model that served. */
export function loopIterations(steps: readonly StepRecord[]): UsageIteration[] {
  return callIterations(callsOf(steps), steps.some((step) => (step.refusals?.length ?? 0) > 0));
}
