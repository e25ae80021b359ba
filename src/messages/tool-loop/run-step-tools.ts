/**
 * Runs one step's gateway tool calls within what the request may still call: the first calls run
 * concurrently (results in call order, never a throw: a failing tool is an error result), the ones past the
 * limit get an error result without running, so the model still has a result for every call it made.
 */
import { errorOutcome, executeGatewayTools, type GatewayToolCall, type GatewayToolOutcome, type ToolExecutionContext } from '#src/server-tools/index.ts';

/** A call that was not run, by default because the request's tool-call limit was reached (counted nowhere). */
export function notRunOutcome(call: GatewayToolCall, reason: string, errorCode = 'max_uses_exceeded'): GatewayToolOutcome {
  return { ...errorOutcome(call, errorCode, reason), usage: {} };
}

/** What running a step's calls gave. */
export interface StepToolsRun {
  outcomes: GatewayToolOutcome[];
  /** How many calls actually ran. */
  ran: number;
}

/** Runs at most `allowed` of the calls; `limit` names the limit in the others' error results. */
export async function runStepTools(calls: readonly GatewayToolCall[], allowed: number, limit: number, context: ToolExecutionContext): Promise<StepToolsRun> {
  const runnable = calls.slice(0, Math.max(0, allowed));
  const outcomes = runnable.length > 0 ? await executeGatewayTools(runnable, context) : [];
  const reason = `not run: this request may make at most ${limit} gateway tool calls`;
  for (const call of calls.slice(runnable.length)) outcomes.push(notRunOutcome(call, reason));
  return { outcomes, ran: runnable.length };
}

/** The outcomes of calls made on the final turn, where tools were disabled: none runs. */
export function callsAfterStop(calls: readonly GatewayToolCall[]): GatewayToolOutcome[] {
  return calls.map((call) => notRunOutcome(call, 'not run: the tool loop had stopped; answer from the results so far'));
}

/**
 * The outcomes of calls in a step cut off at `max_tokens`: none runs, since the last call's input may be
 * cut short (a search for half a query, an MCP tool given half its arguments).
 */
export function callsCutOff(calls: readonly GatewayToolCall[]): GatewayToolOutcome[] {
  return calls.map((call) => notRunOutcome(call, 'not run: the step was cut off at max_tokens, so the input may be incomplete', 'invalid_input'));
}
