/**
 * The running account of a tool loop, as plain data: one record per step (which attempt served it, its
 * usage and cost, the tools it called, why the loop stopped after it), the gateway tool calls run and their
 * `server_tool_use` counters, and the search results the model may cite. The response's summed usage and the
 * stop rule's progress are read from it.
 */
import type { MessageRequest, StopReason, Usage } from '#src/api-types.ts';
import { computeAnthropicCost } from '#src/catalog/pricing.ts';
import type { AttemptRecord } from '#src/messages/run-attempts.ts';
import { servedPricing, type Attempt } from '#src/routing/attempt.ts';
import { addServerToolUsage, type GatewayToolOutcome, type ServerToolUsage } from '#src/server-tools/index.ts';
import type { LoopProgress, StopCause } from './loop-limits.ts';
import { loopIterations } from './loop-iterations.ts';
import { searchSources } from './step-content.ts';

/** One step's usage in Anthropic's convention. */
export interface StepUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number | null;
  cache_read_input_tokens: number | null;
  cache_creation?: Usage['cache_creation'];
  /** Anthropic's own server tools' counters, as the upstream reported them (its web searches are billed). */
  server_tool_use?: Usage['server_tool_use'];
  /** Anthropic's usage per sampling iteration (a `compaction` one is billed apart from the counts above). */
  iterations?: Usage['iterations'];
  output_tokens_details?: Usage['output_tokens_details'];
  /** The speed the upstream reports it served the step at (Anthropic's `usage.speed`): `standard` prices a fast attempt at its standard prices. */
  speed?: Usage['speed'];
  /** The upstream reported no counts: they are the gateway's estimate. */
  estimated?: true;
}

/**
 * An attempt at a step whose model refused it before another model answered the step: the upstream billed
 * what it read and wrote, so the request is charged it, at that attempt's endpoint's prices.
 */
export interface RefusedAttemptCharge {
  attempt: Attempt;
  usage: StepUsage;
  /** USD, on the refused attempt's endpoint; 0 when its upstream does not bill it (src/messages/refusal-billing.ts). */
  cost: number;
}

/** One step of the loop. */
export interface StepRecord {
  /** 1-based. */
  step: number;
  attempt: Attempt;
  /** Every attempt made for the step (failovers included). */
  records: AttemptRecord[];
  stopReason: StopReason;
  /** The usage of the attempt that served the step. */
  usage: StepUsage;
  /** The step's refused attempts, in order, when a refusal moved the step on to another model. */
  refusals?: RefusedAttemptCharge[];
  /** USD: the serving attempt's, on its endpoint, plus every refused attempt's, on its own. */
  cost: number;
  toolsCalled: string[];
  toolsDisabled: boolean;
  stoppedBy?: StopCause;
}

/** A refused call a step moved on from, with what it used and whether its upstream bills it (src/messages/refusal-billing.ts). */
export interface RefusedCall {
  attempt: Attempt;
  usage: StepUsage;
  billed: boolean;
}

/**
 * A streamed step whose answer is arriving: the attempt serving it, the request it was sent (the estimate's
 * base when its vendor reports nothing before the end), the usage its events reported so far, and the refused
 * calls it moved on from (charged with the step when it finishes, by the record builder when the client
 * leaves first).
 */
export interface StepUnderWay {
  attempt: Attempt;
  request: MessageRequest;
  usage: Partial<Usage>;
  refused: readonly RefusedCall[];
}

/** The loop's account so far. */
export interface LoopTally {
  steps: StepRecord[];
  /** Gateway tool calls run. */
  toolCalls: number;
  /** The gateway's tool calls per tool (Anthropic's own are in each step's usage). */
  gatewayToolUse: ServerToolUsage;
  /** URLs of the gateway's search results, which the model's text may cite. */
  sources: Set<string>;
  /** Calls run per model-facing name, for the tools with a `max_uses` of their own (Anthropic's web search). */
  usesByTool: Map<string, number>;
}

/** An empty account. */
export function newLoopTally(): LoopTally {
  return { steps: [], toolCalls: 0, gatewayToolUse: {}, sources: new Set(), usesByTool: new Map() };
}

/** A step's usage from what the upstream reported (a complete message's, or a stream's merged events). */
export function stepUsageOf(usage: Partial<Usage> | undefined): StepUsage {
  return {
    input_tokens: usage?.input_tokens ?? 0,
    output_tokens: usage?.output_tokens ?? 0,
    cache_creation_input_tokens: usage?.cache_creation_input_tokens ?? null,
    cache_read_input_tokens: usage?.cache_read_input_tokens ?? null,
    ...(usage?.cache_creation ? { cache_creation: usage.cache_creation } : {}),
    ...(usage?.server_tool_use ? { server_tool_use: usage.server_tool_use } : {}),
    ...(usage?.iterations ? { iterations: usage.iterations } : {}),
    ...(usage?.output_tokens_details ? { output_tokens_details: usage.output_tokens_details } : {}),
    ...(typeof usage?.speed === 'string' ? { speed: usage.speed } : {}),
    ...(usage?.estimated === true ? { estimated: true as const } : {}),
  };
}

/**
 * The USD cost of a step's usage on the attempt that served it, priced as a plain answer is: its compaction,
 * advisor and fallback iterations and its upstream's web search fee included. The gateway's own tool calls are not in this usage.
 */
export function stepCost(usage: StepUsage, attempt: Pick<Attempt, 'fast' | 'pricing' | 'standardPricing' | 'modelPricing'>): number {
  return computeAnthropicCost(usage, servedPricing(attempt, usage.speed), attempt.modelPricing);
}

/** Records the outcomes of a step's gateway calls: the calls run, their counters, the results to cite. */
export function recordOutcomes(tally: LoopTally, outcomes: readonly GatewayToolOutcome[], ran: number): void {
  tally.toolCalls += ran;
  for (const outcome of outcomes) tally.gatewayToolUse = addServerToolUsage(tally.gatewayToolUse, outcome.usage);
  searchSources(outcomes, tally.sources);
}

/** A usage's tokens, as `max_tokens_used` and the key's token limits count them. */
export function tokensOf(usage: StepUsage): number {
  return usage.input_tokens + usage.output_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
}

/** Every usage the step was billed, in the order its calls ran: its refused attempts', then the serving one's. */
export function billedUsagesOf(step: Pick<StepRecord, 'usage' | 'refusals'>): StepUsage[] {
  return step.refusals === undefined ? [step.usage] : [...step.refusals.map((refusal) => refusal.usage), step.usage];
}

/**
 * Where the loop stands, for the stop rule. `chargedBefore` (the moderation screening's cost) joins the cost,
 * as in the answer's `usage.cost`: `max_cost` reads what the request has been charged so far. Its tokens do
 * not join `tokens`, as they are not among the answer's token counts either.
 */
export function progressOf(tally: LoopTally, chargedBefore = 0): LoopProgress {
  let costUsd = chargedBefore;
  let tokens = 0;
  for (const step of tally.steps) {
    costUsd += step.cost;
    for (const usage of billedUsagesOf(step)) tokens += tokensOf(usage);
  }
  return { steps: tally.steps.length, costUsd, tokens, toolCalls: tally.toolCalls };
}

function sumNullable(values: readonly (number | null | undefined)[]): number | null {
  return values.some((value) => typeof value === 'number') ? values.reduce<number>((sum, value) => sum + (value ?? 0), 0) : null;
}

function sumCacheCreation(usages: readonly StepUsage[]): Usage['cache_creation'] | undefined {
  const parts = usages.map((usage) => usage.cache_creation).filter((part): part is NonNullable<Usage['cache_creation']> => Boolean(part));
  if (parts.length === 0) return undefined;
  const sum: Record<string, number> = {};
  for (const part of parts) for (const [field, value] of Object.entries(part)) if (typeof value === 'number') sum[field] = (sum[field] ?? 0) + value;
  return sum;
}

/** Usages' tokens summed (cache counts null when none had one; one estimate makes the sum an estimate). */
export function summedTokens(usages: readonly StepUsage[]): Omit<Usage, 'server_tool_use' | 'cost'> {
  const reasoning = usages.map((usage) => usage.output_tokens_details?.thinking_tokens);
  const cacheCreation = sumCacheCreation(usages);
  return {
    input_tokens: usages.reduce((sum, usage) => sum + usage.input_tokens, 0),
    output_tokens: usages.reduce((sum, usage) => sum + usage.output_tokens, 0),
    cache_creation_input_tokens: sumNullable(usages.map((usage) => usage.cache_creation_input_tokens)),
    cache_read_input_tokens: sumNullable(usages.map((usage) => usage.cache_read_input_tokens)),
    ...(cacheCreation ? { cache_creation: cacheCreation } : {}),
    ...(reasoning.some((value) => typeof value === 'number') ? { output_tokens_details: { thinking_tokens: sumNullable(reasoning) ?? 0 } } : {}),
    // One step's estimate makes the sum an estimate.
    ...(usages.some((usage) => usage.estimated === true) ? { estimated: true as const } : {}),
  };
}

// The steps' billed usages summed: a refused attempt's tokens are among them, as its cost is among the steps'.
function stepTokens(steps: readonly StepRecord[]): Omit<Usage, 'server_tool_use' | 'cost'> {
  return summedTokens(steps.flatMap(billedUsagesOf));
}

function stepsCost(steps: readonly StepRecord[]): number {
  return steps.reduce((sum, step) => sum + step.cost, 0);
}

/** The tokens and cost of the steps that finished: what a loop that failed partway was charged. */
export function summedStepUsage(steps: readonly StepRecord[]): Omit<Usage, 'server_tool_use'> {
  return { ...stepTokens(steps), cost: stepsCost(steps) };
}

/**
 * The usage of the whole loop: tokens and cost summed over the steps (their refused attempts included), tool
 * calls per tool (the gateway's and Anthropic's), and every model call as an entry of `iterations`;
 * `chargedBefore` (the moderation screening's cost) joins the cost, all the key was charged.
 */
export function summedUsage(tally: LoopTally, chargedBefore = 0): Usage {
  const { steps } = tally;
  let serverToolUse = tally.gatewayToolUse;
  for (const usage of steps.flatMap(billedUsagesOf)) serverToolUse = addServerToolUsage(serverToolUse, usage.server_tool_use);
  return {
    ...stepTokens(steps),
    ...(Object.keys(serverToolUse).length > 0 ? { server_tool_use: serverToolUse } : {}),
    ...(steps.length > 0 ? { iterations: loopIterations(steps) } : {}),
    cost: stepsCost(steps) + chargedBefore,
  };
}
