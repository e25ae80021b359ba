/**
 * What a tool loop was doing when the request's time budget ran out, and the error that says so. The loop
 * notes each activity as it starts (a step's model call on an attempt, the step's gateway tools); when the
 * budget fires, whatever failed because of it (an attempt aborted, a step's stream cut, a next step that
 * could not start) is answered with one `ToolLoopTimeoutError` naming the step and the activity, rather than
 * "every attempt failed" or "no provider answered", which a loop that has run steps would make untrue. JSON
 * and stream alike: in a stream it arrives as the in-band `error` event.
 */
import { TimeBudgetSpent, ToolLoopTimeoutError } from '#src/errors.ts';
import type { Attempt } from '#src/routing/attempt.ts';

/** What the loop is doing, for the message of a timeout. */
export type LoopActivity =
  | { kind: 'model'; step: number; attempt: Attempt }
  | { kind: 'tools'; step: number; tools: readonly string[] };

/** The budget that ran out, when the signal was aborted for that reason (not a client leaving, not a shutdown). */
export function spentBudget(signal: AbortSignal): TimeBudgetSpent | null {
  return signal.aborted && signal.reason instanceof TimeBudgetSpent ? signal.reason : null;
}

function whileDoing(activity: LoopActivity | null): string {
  if (activity === null) return 'step 1, before the model was called';
  if (activity.kind === 'model') return `step ${activity.step}, while ${activity.attempt.model} on ${activity.attempt.provider.displayName} was answering`;
  const tools = [...new Set(activity.tools)];
  return `step ${activity.step}, while the gateway tool${tools.length === 1 ? '' : 's'} ${tools.join(', ')} ran`;
}

/** The error to answer with when the budget ran out during `activity`; null when it did not run out. */
export function loopTimeout(signal: AbortSignal, activity: LoopActivity | null, cause?: unknown): ToolLoopTimeoutError | null {
  const budget = spentBudget(signal);
  if (!budget) return null;
  return new ToolLoopTimeoutError(`${budget.message} during the tool loop's ${whileDoing(activity)}`, { cause });
}
