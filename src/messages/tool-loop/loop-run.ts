/**
 * One running tool loop, as plain data, and the two things every step does whatever the answer's form (JSON
 * or stream): build the adapter call of the next step for an attempt, and, once the step's content is read,
 * run its gateway calls, record the step and decide whether the loop goes on, stops offering tools (a stop
 * condition or the tool-call limit: the next step is the final turn) or ends.
 */
import type { MessageParam, MessageRequest, StopReason } from '#src/api-types.ts';
import type { AttemptCall } from '#src/providers/provider-adapter.ts';
import { attemptCall, revealKey } from '#src/messages/attempt-call.ts';
import type { MessagesDeps } from '#src/messages/create-message.ts';
import type { MessagesRequestContext } from '#src/messages/request-context.ts';
import type { AttemptRecord } from '#src/messages/run-attempts.ts';
import type { Attempt } from '#src/routing/attempt.ts';
import type { RequestPlan } from '#src/routing/plan-request.ts';
import type { GatewayToolCall, GatewayToolOutcome, ToolExecutionContext } from '#src/server-tools/index.ts';
import { addUrlsOfOutcomes, urlsOfConversation } from '#src/server-tools/web-fetch/prior-context-urls.ts';
import { applyPluginsPerAttempt, type PluginState } from '#src/plugins/plugin-pipeline.ts';
import { checkReadableMedia } from '#src/messages/readable-media.ts';
import { initialStopCause, stopCause, type StopCause } from './loop-limits.ts';
import type { LoopActivity } from './loop-timeout.ts';
import { billedUsagesOf, newLoopTally, progressOf, recordOutcomes, stepCost, tokensOf, type LoopTally, type RefusedAttemptCharge, type StepRecord, type StepUsage } from './loop-tally.ts';
import type { ToolLoopSetup } from './prepare-tool-loop.ts';
import { callsAfterStop, callsCutOff, runStepTools } from './run-step-tools.ts';
import type { StepReading } from './step-content.ts';
import { buildStepRequest, modelHistory, threadToolResults, usesSearchResultBlocks, type LoopTurn, type ThreadResume } from './step-request.ts';
import { threadsRequest, withPendingResults } from '#src/routing/sticky/thread-pins.ts';

/** A tool loop in progress. */
export interface LoopRun {
  deps: MessagesDeps;
  /** The client's validated request, never modified: every step's request is built from it. */
  original: MessageRequest;
  context: MessagesRequestContext;
  plan: RequestPlan;
  setup: ToolLoopSetup;
  tally: LoopTally;
  /** The finished steps, as the model gets them back. */
  turns: LoopTurn[];
  /** The original conversation as the model sees it, with and without `search_result` blocks (built once each). */
  histories: Map<boolean, MessageParam[]>;
  /** What the request's plugins prepared before routing; each step's request passes their per-attempt hook. */
  plugins: PluginState;
  /** Set once tools are disabled: the next step is the final turn. */
  stop: StopCause | null;
  /** The attempt that served the previous step, tried first for the next one. */
  startWith?: number;
  /** What the loop is doing now (the current step's model call, or its gateway tools), for a timeout's message. */
  activity: LoopActivity | null;
  /** The URLs `web_fetch` may fetch, gathered at the loop's first fetch call and grown by every later step's results. */
  priorUrls: Set<string> | null;
  /** A thread request's loop, once a step has answered: where the upstream holds the thread now. */
  thread: LoopThread | null;
}

/** Where a threaded loop's conversation lives after its latest step. */
export interface LoopThread {
  /** The id the client is given (the first step's). */
  clientMessageId: string;
  /** The latest step's answer, which the next step continues from. */
  previousMessageId: string;
  /** The attempt that served it: the account (provider and key) that holds the thread. */
  holder: Attempt;
}

/** A new loop over a planned request. */
export function newLoopRun(deps: MessagesDeps, original: MessageRequest, context: MessagesRequestContext, plan: RequestPlan, setup: ToolLoopSetup, plugins: PluginState): LoopRun {
  const tally = newLoopTally();
  context.loopSteps = tally.steps;
  return { deps, original, context, plan, setup, plugins, tally, turns: [], histories: new Map(), stop: initialStopCause(setup.limits), activity: null, priorUrls: null, thread: null };
}

function stepRequest(run: LoopRun, attempt: Attempt): MessageRequest {
  const family = attempt.provider.family;
  const flavour = usesSearchResultBlocks(family, run.original);
  let history = run.histories.get(flavour);
  if (!history) {
    history = modelHistory(run.original, run.setup, family);
    // A continue of a loop that ended on gateway calls the upstream never got results for: those first.
    const pending = run.plan.thread?.pendingResults;
    if (pending !== undefined) history = withPendingResults(history, pending);
    run.histories.set(flavour, history);
  }
  return buildStepRequest({ original: run.original, setup: run.setup, history, turns: run.turns, family, toolsDisabled: run.stop !== null, resume: threadResume(run) });
}

function threadResume(run: LoopRun): ThreadResume | undefined {
  if (run.thread) return { previousMessageId: run.thread.previousMessageId, afterStep: true };
  const resumeFrom = run.plan.thread?.resumeFrom;
  return resumeFrom === undefined ? undefined : { previousMessageId: resumeFrom, afterStep: false };
}

/**
 * The attempts the loop's next step skips: none, unless a step answered a thread request; then every one not
 * on the account that holds the thread (another would answer `thread_not_found`).
 */
export function stepSkips(run: LoopRun): ((attempt: Attempt) => boolean) | undefined {
  const holder = run.thread?.holder;
  if (!holder) return undefined;
  return (attempt) => attempt.provider.slug !== holder.provider.slug || !sameCredential(attempt, holder);
}

function sameCredential(left: Attempt, right: Attempt): boolean {
  if (left.credential.kind !== 'byok' || right.credential.kind !== 'byok') return left.credential.kind === right.credential.kind;
  return left.credential.credentialId === right.credential.credentialId;
}

/**
 * Reserves the next step against the key's limits before any of its attempts is sent: its worst case is read
 * from the step's own request (the conversation so far, tool results included), as the attempt tried first
 * gets it. Throws the 402 or 429 of a spent limit. Returns the hold to settle, if one was taken.
 */
export async function admitStep(run: LoopRun): Promise<string | undefined> {
  const admission = run.deps.admission;
  if (!admission || !run.context.caller.limits) return undefined;
  const first = run.plan.attempts[run.startWith ?? 0] ?? run.plan.attempts[0];
  const request = first ? stepRequest(run, first) : run.original;
  return admission.admitStep({ request, attempts: run.plan.attempts }, run.context, run.tally.steps.length + 1);
}

/** Settles a step's hold to what it used, refused attempts included (nothing, when it failed before an answer). */
export function settleStepHold(run: LoopRun, holdId: string | undefined, step: Pick<StepRecord, 'usage' | 'refusals' | 'cost'> | undefined): void {
  if (holdId === undefined) return;
  const tokens = step ? billedUsagesOf(step).reduce((sum, usage) => sum + tokensOf(usage), 0) : 0;
  run.deps.admission?.settleStep(run.context.generationId, holdId, { cost: step?.cost ?? 0, tokens });
}

/** The adapter call of the loop's next step on one attempt; the attempt's key is revealed now. */
export async function stepCall(run: LoopRun, attempt: Attempt): Promise<AttemptCall> {
  run.activity = { kind: 'model', step: run.tally.steps.length + 1, attempt };
  const request = stepRequest(run, attempt);
  const sent = applyPluginsPerAttempt(request, attempt, run.plugins);
  checkReadableMedia(sent, attempt);
  return attemptCall(sent, attempt, run.context, await revealKey(attempt, run.context.caller.accountId, run.deps.vault));
}

// Gathered only once a step fetches, so a loop without web_fetch calls never reads its conversation for URLs.
function priorUrlsFor(run: LoopRun, calls: readonly GatewayToolCall[]): ReadonlySet<string> {
  if (run.priorUrls) return run.priorUrls;
  if (!calls.some((call) => call.tool.kind === 'web_fetch')) return NO_URLS;
  run.priorUrls = urlsOfConversation(run.original.messages);
  for (const turn of run.turns) addUrlsOfOutcomes(turn.outcomes, run.priorUrls);
  return run.priorUrls;
}

const NO_URLS: ReadonlySet<string> = new Set();

/** What the gateway's tools run with during this request, for a step's `calls`. */
export function toolContext(run: LoopRun, calls: readonly GatewayToolCall[]): ToolExecutionContext {
  const { serverTools, logger } = run.deps;
  return { signal: run.context.signal, config: serverTools.config, logger, runtime: serverTools.runtime, priorUrls: priorUrlsFor(run, calls) };
}

/** One step's answer, read. */
export interface StepAnswer {
  attempt: Attempt;
  /** The attempt's position in the plan. */
  index: number;
  records: AttemptRecord[];
  reading: StepReading;
  usage: StepUsage;
  /** The attempts whose models refused the step before `attempt` answered it, in order, with what each used. */
  refused?: readonly { attempt: Attempt; usage: StepUsage; billed?: boolean }[];
  stopReason: StopReason;
  /** The step's hold against the key's limits (admitStep), settled here. */
  holdId?: string | undefined;
  /** The id the upstream gave the step's message. */
  messageId?: string | undefined;
  /** The id the client is given, when not the first step's `messageId` (a stream whose first step was refused). */
  clientMessageId?: string | undefined;
}

/** What the step led to. */
export interface StepOutcome {
  /** The step's gateway calls' outcomes, in call order (their result blocks follow the step). */
  outcomes: GatewayToolOutcome[];
  /** The loop is over; `stopReason` is the response's. */
  done: boolean;
  stopReason: StopReason;
}

/**
 * A thread request's step answered: the thread now lives under this step's answer, in its account. The id the
 * client is given (the first step's) is pinned there, so the client's next `continue` resumes from this step.
 * `unanswered`: the loop ends on this step and the upstream never gets these results of its gateway calls
 * (a `pause_turn`, a cut-off step, client tool calls beside them); they are pinned too, for the continue to
 * start with, as Anthropic continues a thread only when every call of its last answer has its result.
 */
function recordThreadStep(run: LoopRun, answer: StepAnswer, unanswered: LoopTurn | undefined): void {
  if (answer.messageId === undefined || !threadsRequest(run.original)) return;
  const clientMessageId = run.thread?.clientMessageId ?? answer.clientMessageId ?? answer.messageId;
  run.thread = { clientMessageId, previousMessageId: answer.messageId, holder: answer.attempt };
  const pendingResults = unanswered && unanswered.outcomes.length > 0 ? threadToolResults(unanswered, usesSearchResultBlocks(answer.attempt.provider.family, run.original)) : undefined;
  run.deps.planner.recordThreadTurn(run.plan, { clientMessageId, upstreamMessageId: answer.messageId, attempt: answer.attempt, ...(pendingResults ? { pendingResults } : {}) });
}

function modelIdsOf(calls: readonly GatewayToolCall[]): Map<string, string> {
  const ids = new Map<string, string>();
  for (const call of calls) if (call.modelId !== undefined) ids.set(call.id, call.modelId);
  return ids;
}

/** Runs the step's gateway calls (none once tools are disabled), records the step and decides what comes next. */
export async function finishStep(run: LoopRun, answer: StepAnswer): Promise<StepOutcome> {
  const { tally, setup } = run;
  const { gatewayCalls, clientToolCalls, toolsCalled } = answer.reading;
  const toolsDisabled = run.stop !== null;
  const cutOff = answer.stopReason === 'max_tokens';
  let outcomes: GatewayToolOutcome[];
  let ran = 0;
  if (toolsDisabled) outcomes = callsAfterStop(gatewayCalls);
  else if (cutOff) outcomes = callsCutOff(gatewayCalls);
  else {
    if (gatewayCalls.length > 0) run.activity = { kind: 'tools', step: tally.steps.length + 1, tools: gatewayCalls.map((call) => call.tool.modelName) };
    ({ outcomes, ran } = await runStepTools(gatewayCalls, setup.limits.maxToolCalls - tally.toolCalls, setup.limits.maxToolCalls, toolContext(run, gatewayCalls), tally.usesByTool));
  }
  recordOutcomes(tally, outcomes, ran);
  // The upstream bills a refusal's tokens (not one before any output in an unbilled category, `billed` false):
  // the step is charged them at the refused attempt's prices.
  const refusals: RefusedAttemptCharge[] = (answer.refused ?? []).map(({ attempt, usage, billed }) => ({ attempt, usage, cost: billed === false ? 0 : stepCost(usage, attempt) }));
  const record: StepRecord = {
    step: tally.steps.length + 1,
    attempt: answer.attempt,
    records: answer.records,
    stopReason: answer.stopReason,
    usage: answer.usage,
    ...(refusals.length > 0 ? { refusals } : {}),
    cost: refusals.reduce((sum, refusal) => sum + refusal.cost, stepCost(answer.usage, answer.attempt)),
    toolsCalled,
    toolsDisabled,
  };
  tally.steps.push(record);
  const done = gatewayCalls.length === 0 || clientToolCalls > 0 || toolsDisabled || cutOff;
  const turn: LoopTurn = { assistant: answer.reading.assistantTurn, outcomes, modelIds: modelIdsOf(gatewayCalls) };
  recordThreadStep(run, answer, done ? turn : undefined);
  // Among the steps now: a loop left from here on is charged it as one of them.
  run.context.loopStepUnderWay = null;
  run.startWith = answer.index;
  settleStepHold(run, answer.holdId, record);

  if (done) {
    // Gateway calls left on the final turn did not run: the client may send the message back to continue.
    const paused = toolsDisabled && gatewayCalls.length > 0 && clientToolCalls === 0;
    return { outcomes, done: true, stopReason: paused ? 'pause_turn' : answer.stopReason };
  }
  run.turns.push(turn);
  if (run.priorUrls) addUrlsOfOutcomes(outcomes, run.priorUrls);
  run.stop = stopCause(setup.limits, progressOf(tally, run.context.screening?.cost ?? 0), { stopReason: answer.stopReason, toolsCalled });
  if (run.stop) record.stoppedBy = run.stop;
  return { outcomes, done: false, stopReason: answer.stopReason };
}
