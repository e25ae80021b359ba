/**
 * The tool loop as one event stream. The first step is started before the response is committed (a failure
 * before its first event is still a failover, or an HTTP error); after that each step's events go out as they
 * arrive through the loop's stream state, the gateway calls run between steps and their result blocks follow,
 * and the next step starts on the attempt that served the previous one. A step whose stream ends in a refusal
 * (known at its `message_delta`) goes on with the next model: a `fallback` block, then that model's answer to
 * the same step, as a plain stream's refusal is spliced (refusal-fallback-stream.ts). A step that fails on every attempt,
 * or the request's time budget running out (loop-timeout.ts), ends the stream with an in-band `error` event
 * (thrown to the route's stream writer).
 */
import { logWarnings, streamDroppedFields, settleStream, startStream, streamEvents, streamMessageId, streamOutcomeStage, streamResponseModel, type StartedStream, type StreamOutcome } from '#src/messages/attempt-answers.ts';
import type { NextModelStream, StreamRefusal } from '#src/messages/refusal-fallback-stream.ts';
import { runAttempts, type AttemptRecord, type AttemptsRun } from '#src/messages/run-attempts.ts';
import { refusalBilled } from '#src/messages/refusal-billing.ts';
import { withStages } from '#src/providers/event-stages.ts';
import { applyPluginsToStream } from '#src/plugins/plugin-pipeline.ts';
import type { SseEvent } from '#src/providers/provider-adapter.ts';
import type { MessageRequest, Usage } from '#src/api-types.ts';
import { isByok, type Attempt } from '#src/routing/attempt.ts';
import { buildLoopMetadata } from './loop-metadata.ts';
import { admitStep, finishStep, settleStepHold, stepCall, stepSkips, type LoopRun } from './loop-run.ts';
import { LoopStreamState } from './loop-stream-state.ts';
import { passedThroughStream, passesThrough, type LoopAfterRefusal } from './pass-through-step.ts';
import { ownKeyRateLimitHeaders } from '#src/messages/own-key-rate-limits.ts';
import { withMaxTokensHeader } from '#src/messages/max-tokens-header.ts';
import { DEFAULT_TOOL_LOOP_PING_MS, pingsWhile } from './pings-while.ts';
import { stepUsageOf, summedUsage, type RefusedCall, type StepUnderWay } from './loop-tally.ts';
import { loopTimeout } from './loop-timeout.ts';

type StartedStep = Extract<AttemptsRun<StartedStream>, { ok: true }> & { holdId: string | undefined; request: MessageRequest };

/**
 * Starts the loop's next step: reserves it against the key's limits, then tries its attempts in order (the
 * previous step's first) until one's stream begins. Routing hears the served attempt when its step's stream
 * ends (`stepEvents`), as for a plain stream: a step that fails after its first events counts against its
 * endpoint's circuit and its session's pin. `after`: the step was refused by `after.refused`'s model and goes
 * on with the next model, on the refused attempt's hold, trying none of the attempts `after.skip` names.
 */
async function startStep(run: LoopRun, after?: { refused: StartedStep; skip: (attempt: Attempt, index: number) => boolean }): Promise<StartedStep> {
  const { deps, plan, context } = run;
  // Attempts run one after another: the last request built is the one the serving attempt was sent.
  let request = run.original;
  const start = async (attempt: Attempt) => {
    const call = await stepCall(run, attempt);
    request = call.request;
    return startStream(attempt, await deps.adapterFor(attempt.provider.family).stream(call));
  };
  const holdId = after ? after.refused.holdId : await admitStep(run);
  const order = after ? { skip: after.skip } : { ...(run.startWith !== undefined ? { startWith: run.startWith } : {}), skip: stepSkips(run) };
  const tried = await runAttempts(plan.attempts, start, { signal: context.signal, responseModel: streamResponseModel, droppedFields: streamDroppedFields, maxTokens: run.original.max_tokens, ...order });
  let started: Extract<AttemptsRun<StartedStream>, { ok: true }>;
  try {
    started = settleStream(deps.planner, plan, context, tried);
  } catch (error) {
    // A refused step whose next model did not answer keeps the refusal as its answer (and its hold), and
    // lists the attempts that failed after it, as a JSON step does.
    if (after) {
      after.refused.records = [...after.refused.records, ...tried.records];
      throw error;
    }
    settleStepHold(run, holdId, undefined);
    throw loopTimeout(context.signal, run.activity, error) ?? error;
  }
  logWarnings(deps.logger, started.attempt, started.result.warnings, context.generationId);
  // A step's records are every attempt it made, the refused streams' included (the loop's metadata lists them).
  const records = after ? [...after.refused.records, ...started.records] : started.records;
  return { ...started, records, holdId, request };
}

/** A step's events, whose end (complete, failed mid-way, or left) tells routing how its served attempt did. */
function stepEvents(run: LoopRun, step: StartedStep): { events: AsyncIterable<SseEvent>; outcome: StreamOutcome } {
  const served = step.records.findLast((record) => record.index === step.index) as AttemptRecord;
  const outcome = streamOutcomeStage(run.deps.planner, run.plan, run.context, served);
  return { events: withStages(streamEvents(step.result), [outcome]), outcome };
}

/**
 * The step's refusal moves on to the next model, as a JSON step's does: the refused attempt is recorded as a
 * refusal (in the step's records too), then the attempts this step has not tried, of models that have not
 * refused it, are tried in plan order (a thread's only on its account). Null when none answers: the refusal
 * is the step's answer.
 */
async function nextModelStep(run: LoopRun, refused: StartedStep, outcome: StreamOutcome, refusedModels: Set<string>, reported: Partial<Usage>, billed: boolean): Promise<StartedStep | null> {
  outcome.refused();
  refusedModels.add(refused.attempt.model);
  refused.records = refused.records.map((record) => (record.index === refused.index && record.status === 'success' ? { ...record, status: 'refusal' } : record));
  const tried = new Set(refused.records.map((record) => record.index));
  const thread = stepSkips(run);
  const skip = (attempt: Attempt, index: number) => tried.has(index) || refusedModels.has(attempt.model) || thread?.(attempt) === true;
  if (!run.plan.attempts.some((attempt, index) => !skip(attempt, index))) return null;
  try {
    const next = await startStep(run, { refused, skip });
    outcome.movedOn(reported, billed);
    return next;
  } catch {
    return null;
  }
}

/** A first step that a passed-through stream's refusal moved on to (pass-through-step.ts): what it carries over. */
interface MovedOnFrom {
  refusedModels: Set<string>;
  refused: RefusedCall[];
  /** The id the client was given: the refused stream's `message_start`'s. */
  clientMessageId: string | undefined;
}

async function* loopEvents(run: LoopRun, firstStep: StartedStep, from?: MovedOnFrom): AsyncGenerator<SseEvent> {
  const first = firstStep.attempt;
  const state = new LoopStreamState({ setup: run.setup, sources: run.tally.sources, model: first.model, provider: first.provider.displayName });
  let current = firstStep;
  let carried = from;
  for (;;) {
    const refusedModels = carried?.refusedModels ?? new Set<string>();
    // The attempts whose refusal this step moved on from, with what each used (charged with the step).
    const refused: RefusedCall[] = carried?.refused ?? [];
    carried = undefined;
    // What the step's upstream reports is known before each event goes out, for a client that leaves then; so
    // are the refused calls it moved on from, which such a client is charged with it (the same list, grown).
    const underWay: StepUnderWay = { attempt: current.attempt, request: current.request, usage: {}, refused };
    run.context.loopStepUnderWay = underWay;
    try {
      for (;;) {
        const { events, outcome } = stepEvents(run, current);
        let next: StartedStep | null = null;
        let asked = false;
        let billed = true;
        for await (const event of events) {
          const out = state.push(event);
          underWay.usage = state.reportedUsage;
          // Known at the step's message_delta (it gives no client event): leaving the loop stops the refused stream.
          const refusal = asked ? null : state.stepRefusal;
          if (refusal) {
            asked = true;
            // A refusal before any output in a category its upstream does not bill is charged nothing (refusal-billing.ts).
            billed = refusalBilled({ family: current.attempt.provider.family, ...refusal });
            next = await nextModelStep(run, current, outcome, refusedModels, state.reportedUsage, billed);
            if (next) break;
          }
          yield* out;
        }
        if (!next) break;
        // Its message_delta has arrived: what the refused stream reported is what its upstream bills.
        refused.push({ attempt: current.attempt, usage: stepUsageOf(state.reportedUsage), billed });
        // The fallback block, then the next model's answer to the same step.
        yield* state.movedOn(current.attempt.model, next.attempt.model);
        current = next;
        underWay.attempt = next.attempt;
        underWay.request = next.request;
        underWay.usage = {};
      }
    } catch (error) {
      throw loopTimeout(run.context.signal, run.activity, error) ?? error;
    }
    // A step's stream cut by the budget may end without an error: it is not a step to act on.
    const late = state.stepEnded ? null : loopTimeout(run.context.signal, run.activity);
    if (late) throw late;
    const step = state.endStep();
    const { attempt, index, records, holdId } = current;
    const finishing = finishStep(run, { attempt, index, records, reading: step.reading, usage: step.usage, refused, stopReason: step.stopReason, holdId, messageId: step.messageId, clientMessageId: from?.clientMessageId ?? state.clientMessageId });
    const outcome = yield* pingsWhile(finishing, run.deps.serverTools.pingMs ?? DEFAULT_TOOL_LOOP_PING_MS);
    yield* state.toolResults(outcome.outcomes);
    if (outcome.done) {
      yield* state.finish({
        stopReason: outcome.stopReason,
        stopSequence: step.stopSequence,
        // A refusal's details belong to the response only when it ends as that step did (not a pause_turn).
        ...(outcome.stopReason === step.stopReason ? { stopDetails: step.stopDetails } : {}),
        usage: summedUsage(run.tally, run.context.screening?.cost ?? 0),
        isByok: isByok(first),
        ...(run.context.wantsMetadata ? { metadata: buildLoopMetadata(run.plan, run.tally, run.context.startedAt) } : {}),
      });
      return;
    }
    current = await startStep(run);
  }
}

/**
 * Starts the loop's stream: resolves once the first step's first event has arrived. A first step served by an
 * attempt that took the request as sent is the stream as its upstream sent it (pass-through-step.ts), until
 * it ends in a refusal: then the loop goes on from that step on the next model (`loopAfterRefusal`).
 */
export async function streamToolLoop(run: LoopRun): Promise<{ events: AsyncIterable<SseEvent>; headers?: Record<string, string> | undefined }> {
  const first = await startStep(run);
  // The plugins report for the attempt that served the last step (a later step may have fallen over).
  const lastServed = () => run.plan.attempts[run.startWith ?? first.index] ?? first.attempt;
  // The headers go out with the first step's first event: they describe its attempt (a lowered max_tokens).
  const lowered = withMaxTokensHeader(undefined, run.original.max_tokens, first.attempt);
  if (passesThrough(run, first.attempt)) {
    // A caller's own key: its upstream's rate-limit headers, as a plain stream's answer carries them.
    const headers = withMaxTokensHeader(ownKeyRateLimitHeaders(first.attempt, first.result.upstreamHeaders), run.original.max_tokens, first.attempt);
    const afterRefusal: LoopAfterRefusal = (outcome, refusal) => loopAfterRefusal(run, first, outcome, refusal);
    return { events: applyPluginsToStream(passedThroughStream(run, first, afterRefusal), run.plugins, lastServed), headers };
  }
  return { events: applyPluginsToStream(loopEvents(run, first), run.plugins, lastServed), ...(lowered ? { headers: lowered } : {}) };
}

/**
 * The passed-through first step's refusal moves on as a loop step's does (`nextModelStep`): the loop from that
 * step on, on the next model that answers it, the refused call charged with the step; null when none answers.
 */
async function loopAfterRefusal(run: LoopRun, refused: StartedStep, outcome: StreamOutcome, refusal: StreamRefusal): Promise<NextModelStream | null> {
  const refusedModels = new Set<string>();
  const billed = refusalBilled({ family: refused.attempt.provider.family, ...refusal });
  const next = await nextModelStep(run, refused, outcome, refusedModels, refusal.usage, billed);
  if (!next) return null;
  const from: MovedOnFrom = { refusedModels, refused: [{ attempt: refused.attempt, usage: stepUsageOf(refusal.usage), billed }], clientMessageId: streamMessageId(refused.result) };
  return { model: next.attempt.model, events: loopEvents(run, next, from) };
}
