/**
 * The tool loop as one event stream. The first step is started before the response is committed (a failure
 * before its first event is still a failover, or an HTTP error); after that each step's events go out as they
 * arrive through the loop's stream state, the gateway calls run between steps and their result blocks follow,
 * and the next step starts on the attempt that served the previous one. A step that fails on every attempt
 * ends the stream with an in-band `error` event (thrown to the route's stream writer).
 */
import { logWarnings, settle, startStream, streamEvents, type StartedStream } from '#src/messages/attempt-answers.ts';
import { runAttempts, type AttemptsRun } from '#src/messages/run-attempts.ts';
import { applyPluginsToStream } from '#src/plugins/plugin-pipeline.ts';
import type { SseEvent } from '#src/providers/provider-adapter.ts';
import { isByok, type Attempt } from '#src/routing/attempt.ts';
import { buildLoopMetadata } from './loop-metadata.ts';
import { finishStep, stepCall, type LoopRun } from './loop-run.ts';
import { LoopStreamState } from './loop-stream-state.ts';
import { summedUsage } from './loop-tally.ts';

type StartedStep = Extract<AttemptsRun<StartedStream>, { ok: true }>;

/** Starts the loop's next step: its attempts in order (the previous step's first) until one's stream begins. */
async function startStep(run: LoopRun): Promise<StartedStep> {
  const { deps, plan, context } = run;
  const start = async (attempt: Attempt) => startStream(attempt, await deps.adapterFor(attempt.provider.family).stream(await stepCall(run, attempt)));
  const started = settle(
    deps.planner,
    plan,
    context,
    await runAttempts(plan.attempts, start, { signal: context.signal, ...(run.startWith !== undefined ? { startWith: run.startWith } : {}) }),
  );
  logWarnings(deps.logger, started.attempt, started.result.warnings, context.generationId);
  return started;
}

async function* loopEvents(run: LoopRun, firstStep: StartedStep): AsyncGenerator<SseEvent> {
  const first = firstStep.attempt;
  const state = new LoopStreamState({ setup: run.setup, sources: run.tally.sources, model: first.model, provider: first.provider.displayName });
  let current = firstStep;
  for (;;) {
    for await (const event of streamEvents(current.result)) yield* state.push(event);
    const step = state.endStep();
    const { attempt, index, records } = current;
    const outcome = await finishStep(run, { attempt, index, records, reading: step.reading, usage: step.usage, stopReason: step.stopReason });
    yield* state.toolResults(outcome.outcomes);
    if (outcome.done) {
      yield* state.finish({
        stopReason: outcome.stopReason,
        stopSequence: step.stopSequence,
        usage: summedUsage(run.tally),
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
  return applyPluginsToStream(loopEvents(run, first), run.plugins, first.attempt);
}
