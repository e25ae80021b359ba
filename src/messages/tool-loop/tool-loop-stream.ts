/**
 * The tool loop as one event stream. The first step is started before the response is committed (a failure
 * before its first event is still a failover, or an HTTP error); after that each step's events go out as they
 * arrive through the loop's stream state, the gateway calls run between steps and their result blocks follow,
 * and the next step starts on the attempt that served the previous one. A step that fails on every attempt,
 * or the request's time budget running out (loop-timeout.ts), ends the stream with an in-band `error` event
 * (thrown to the route's stream writer).
 */
import { logWarnings, settleStream, startStream, streamEvents, streamOutcomeStage, streamResponseModel, type StartedStream } from '#src/messages/attempt-answers.ts';
import { runAttempts, type AttemptRecord, type AttemptsRun } from '#src/messages/run-attempts.ts';
import { withStages } from '#src/providers/event-stages.ts';
import { applyPluginsToStream } from '#src/plugins/plugin-pipeline.ts';
import type { SseEvent } from '#src/providers/provider-adapter.ts';
import type { MessageRequest } from '#src/api-types.ts';
import { isByok, type Attempt } from '#src/routing/attempt.ts';
import { buildLoopMetadata } from './loop-metadata.ts';
import { admitStep, finishStep, settleStepHold, stepCall, stepSkips, type LoopRun } from './loop-run.ts';
import { LoopStreamState } from './loop-stream-state.ts';
import { DEFAULT_TOOL_LOOP_PING_MS, pingsWhile } from './pings-while.ts';
import { summedUsage, type StepUnderWay } from './loop-tally.ts';
import { loopTimeout } from './loop-timeout.ts';

type StartedStep = Extract<AttemptsRun<StartedStream>, { ok: true }> & { holdId: string | undefined; request: MessageRequest };

/**
 * Starts the loop's next step: reserves it against the key's limits, then tries its attempts in order (the
 * previous step's first) until one's stream begins. Routing hears the served attempt when its step's stream
 * ends (`stepEvents`), as for a plain stream: a step that fails after its first events counts against its
 * endpoint's circuit and its session's pin.
 */
async function startStep(run: LoopRun): Promise<StartedStep> {
  const { deps, plan, context } = run;
  // Attempts run one after another: the last request built is the one the serving attempt was sent.
  let request = run.original;
  const start = async (attempt: Attempt) => {
    const call = await stepCall(run, attempt);
    request = call.request;
    return startStream(attempt, await deps.adapterFor(attempt.provider.family).stream(call));
  };
  const holdId = await admitStep(run);
  let started: Extract<AttemptsRun<StartedStream>, { ok: true }>;
  try {
    started = settleStream(
      deps.planner,
      plan,
      context,
      await runAttempts(plan.attempts, start, { signal: context.signal, responseModel: streamResponseModel, ...(run.startWith !== undefined ? { startWith: run.startWith } : {}), skip: stepSkips(run) }),
    );
  } catch (error) {
    settleStepHold(run, holdId, undefined, 0);
    throw loopTimeout(context.signal, run.activity, error) ?? error;
  }
  logWarnings(deps.logger, started.attempt, started.result.warnings, context.generationId);
  return { ...started, holdId, request };
}

/** A step's events, whose end (complete, failed mid-way, or left) tells routing how its served attempt did. */
function stepEvents(run: LoopRun, step: StartedStep): AsyncIterable<SseEvent> {
  const served = step.records.findLast((record) => record.index === step.index) as AttemptRecord;
  return withStages(streamEvents(step.result), [streamOutcomeStage(run.deps.planner, run.plan, run.context, served)]);
}

async function* loopEvents(run: LoopRun, firstStep: StartedStep): AsyncGenerator<SseEvent> {
  const first = firstStep.attempt;
  const state = new LoopStreamState({ setup: run.setup, sources: run.tally.sources, model: first.model, provider: first.provider.displayName });
  let current = firstStep;
  for (;;) {
    // What the step's upstream reports is known before each event goes out, for a client that leaves then.
    const underWay: StepUnderWay = { attempt: current.attempt, request: current.request, usage: {} };
    run.context.loopStepUnderWay = underWay;
    try {
      for await (const event of stepEvents(run, current)) {
        const out = state.push(event);
        underWay.usage = state.reportedUsage;
        yield* out;
      }
    } catch (error) {
      throw loopTimeout(run.context.signal, run.activity, error) ?? error;
    }
    // A step's stream cut by the budget may end without an error: it is not a step to act on.
    const late = state.stepEnded ? null : loopTimeout(run.context.signal, run.activity);
    if (late) throw late;
    const step = state.endStep();
    const { attempt, index, records, holdId } = current;
    const finishing = finishStep(run, { attempt, index, records, reading: step.reading, usage: step.usage, stopReason: step.stopReason, holdId, messageId: step.messageId });
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

/** Starts the loop's stream: resolves once the first step's first event has arrived. */
export async function streamToolLoop(run: LoopRun): Promise<AsyncIterable<SseEvent>> {
  const first = await startStep(run);
  // The plugins report for the attempt that served the last step (a later step may have fallen over).
  const lastServed = () => run.plan.attempts[run.startWith ?? first.index] ?? first.attempt;
  return applyPluginsToStream(loopEvents(run, first), run.plugins, lastServed);
}
