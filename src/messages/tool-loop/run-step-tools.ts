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

/** The `max_uses` of a call's tool, when it has one of its own (Anthropic's web search run by the gateway). */
function maxUsesOf(call: GatewayToolCall): number | undefined {
  return call.tool.kind === 'web_search' ? call.tool.settings.maxUses : undefined;
}

/**
 * Runs at most `allowed` of the calls; `limit` names the limit in the others' error results. A call past its
 * own tool's `max_uses` (counted in `usesByTool`, by model-facing name) gets Anthropic's `max_uses_exceeded`
 * result without running, as Anthropic answers a search past the tool's `max_uses`.
 */
export async function runStepTools(calls: readonly GatewayToolCall[], allowed: number, limit: number, context: ToolExecutionContext, usesByTool?: Map<string, number>): Promise<StepToolsRun> {
  const reason = `not run: this request may make at most ${limit} gateway tool calls`;
  const placed: (GatewayToolOutcome | undefined)[] = [];
  const runnable: GatewayToolCall[] = [];
  calls.forEach((call, position) => {
    const maxUses = maxUsesOf(call);
    const used = usesByTool?.get(call.tool.modelName) ?? 0;
    if (runnable.length >= allowed) placed[position] = notRunOutcome(call, reason);
    else if (maxUses !== undefined && used >= maxUses) placed[position] = notRunOutcome(call, `not run: ${call.tool.modelName} may be used at most ${maxUses} times in this request (max_uses)`);
    else {
      if (maxUses !== undefined) usesByTool?.set(call.tool.modelName, used + 1);
      runnable.push(call);
    }
  });
  const ran = runnable.length > 0 ? await executeGatewayTools(runnable, context) : [];
  let next = 0;
  const outcomes = calls.map((_call, position) => placed[position] ?? (ran[next++] as GatewayToolOutcome));
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
