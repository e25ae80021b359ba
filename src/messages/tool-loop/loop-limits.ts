/**
 * The limits of one request's server-side tool loop, read from `stop_server_tools_when` and `max_tool_calls`,
 * and the pure rule that says, after a step, whether the loop stops offering tools (and why).
 *
 * Defaults follow the hosted service the interface describes: its `max_tool_calls` "defaults to 30, which is
 * also the maximum" (OpenRouter's API reference, `max_tool_calls`), so a request names at most 30 gateway tool
 * calls; that ceiling holds whatever the request says, stop conditions included.
 */
import type { MessageRequest, StopReason } from '#src/api-types.ts';
import { knownStopConditions, type KnownStopCondition as StopCondition } from '#src/request/stop-conditions.ts';

/** Gateway tool calls a request may make when it says nothing. */
export const DEFAULT_MAX_TOOL_CALLS = 30;

/** Gateway tool calls no request may exceed, whatever its `max_tool_calls` or stop conditions. */
export const MAX_TOOL_CALLS_CEILING = 30;

/** A request's loop limits. */
export interface LoopLimits {
  /** The request's stop conditions; empty when it gave none. */
  conditions: readonly StopCondition[];
  /** Gateway tool calls the loop may run, all steps together. */
  maxToolCalls: number;
}

/** Why the loop stopped offering tools: a condition as the request gave it, or the tool-call limit. */
export type StopCause = StopCondition | { type: 'max_tool_calls'; max_tool_calls: number };

/** Where the loop stands after a step, summed over the steps so far. */
export interface LoopProgress {
  steps: number;
  costUsd: number;
  /** Input, output, cache read and cache write tokens. */
  tokens: number;
  /** Gateway tool calls run. */
  toolCalls: number;
}

/** What the rule reads of the step just made. */
export interface StepFacts {
  stopReason: StopReason;
  /** Model-facing names of every tool the model called in the step. */
  toolsCalled: readonly string[];
}

/** The request's limits: its conditions override `max_tool_calls`; the ceiling bounds both. */
export function readLoopLimits(request: Pick<MessageRequest, 'stop_server_tools_when' | 'max_tool_calls'>): LoopLimits {
  const conditions = request.stop_server_tools_when ? knownStopConditions(request.stop_server_tools_when) : [];
  if (conditions.length > 0) return { conditions, maxToolCalls: MAX_TOOL_CALLS_CEILING };
  return { conditions, maxToolCalls: Math.min(request.max_tool_calls ?? DEFAULT_MAX_TOOL_CALLS, MAX_TOOL_CALLS_CEILING) };
}

/** Why the very first turn already has tools disabled (`max_tool_calls: 0`), or null. */
export function initialStopCause(limits: LoopLimits): StopCause | null {
  return limits.maxToolCalls === 0 ? { type: 'max_tool_calls', max_tool_calls: 0 } : null;
}

function fires(condition: StopCondition, progress: LoopProgress, step: StepFacts): boolean {
  switch (condition.type) {
    case 'step_count_is':
      return progress.steps >= condition.step_count;
    case 'max_cost':
      return progress.costUsd >= condition.max_cost_in_dollars;
    case 'max_tokens_used':
      return progress.tokens >= condition.max_tokens;
    case 'has_tool_call':
      return step.toolsCalled.includes(condition.tool_name);
    case 'finish_reason_is':
      return step.stopReason === condition.reason;
    default: {
      const unreachable: never = condition;
      throw new Error(`unknown stop condition ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * After a step whose gateway calls have run: the first condition that fires (OR, in the request's order), else
 * the tool-call limit once reached, else null (the loop goes on).
 */
export function stopCause(limits: LoopLimits, progress: LoopProgress, step: StepFacts): StopCause | null {
  for (const condition of limits.conditions) if (fires(condition, progress, step)) return condition;
  if (progress.toolCalls >= limits.maxToolCalls) return { type: 'max_tool_calls', max_tool_calls: limits.maxToolCalls };
  return null;
}
