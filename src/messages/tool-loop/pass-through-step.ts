/**
 * A tool loop's first step served by an attempt that takes the request as the client sent it (`searchRunOf`:
 * an Anthropic-format endpoint of a plan whose only gateway tool is Anthropic's web search, converted for the
 * plan's translated endpoints). That attempt runs its own search and calls none of the gateway's tools, so the
 * loop has nothing to add: its answer goes to the client as a plain request's does, Anthropic's
 * `server_tool_use` and `web_search_tool_result` blocks as sent, a stream's events forwarded (only the three
 * that carry the gateway's fields amended, gateway-additions.ts), priced at the endpoint's prices (its
 * `web_search_request` fee included), the metadata and the generation record a plain answer's (no tool
 * steps). The step still settles its hold against the key's limits, as every step of a loop does. A stream
 * that ends in a refusal moves on to the loop's next model, which runs the gateway's tools from that step.
 */
import type { MessageDeltaEvent, MessageResponse, MessageStartEvent, Usage } from '#src/api-types.ts';
import { answerAdditions } from '#src/messages/answer-additions.ts';
import { streamEvents, streamMessageId, streamOutcomeStage, type StartedStream, type StreamOutcome } from '#src/messages/attempt-answers.ts';
import { searchRunOf } from '#src/messages/anthropic-search-run.ts';
import { amendStream, finalizeMessage } from '#src/messages/gateway-additions.ts';
import { ownKeyRateLimitHeaders } from '#src/messages/own-key-rate-limits.ts';
import { withMaxTokensHeader } from '#src/messages/max-tokens-header.ts';
import { refusalCharge, withRefusalCharges } from '#src/messages/refusal-charges.ts';
import { spliceRefusalFallbacks, type NextModelStream, type StartNextModel, type StreamRefusal } from '#src/messages/refusal-fallback-stream.ts';
import { withRefusedHops, type RefusedHop } from '#src/messages/refused-hops.ts';
import type { AttemptRecord } from '#src/messages/run-attempts.ts';
import { staged, type EventStage } from '#src/providers/event-stages.ts';
import { eventPayload, sseEventName, type AdapterMessage, type SseEvent } from '#src/providers/provider-adapter.ts';
import type { Attempt } from '#src/routing/attempt.ts';
import { finishStep, settleStepHold, type LoopRun } from './loop-run.ts';
import { stepCost, stepUsageOf, type RefusedCall } from './loop-tally.ts';
import { readStepContent } from './step-content.ts';

/** Whether `attempt`'s answer to the loop's next step is passed through (`searchRunOf`). */
export function passesThrough(run: Pick<LoopRun, 'original' | 'tally'>, attempt: Attempt): boolean {
  return searchRunOf(attempt.provider.family, run.original.tools ?? [], run.tally.steps.length === 0) === 'as-sent';
}

/** A JSON step as the loop ran it: the served answer, and the refusals it moved on from. */
export interface AnsweredStep {
  result: AdapterMessage;
  attempt: Attempt;
  index: number;
  records: AttemptRecord[];
  holdId: string | undefined;
  hops: RefusedHop[];
  /** `billed`: whether its upstream bills it (src/messages/refusal-billing.ts). */
  refused: RefusedCall[];
}

/**
 * The step's answer as a plain request's: recorded as the loop's step (its hold settled, a thread's turn
 * pinned), then the loop's steps dropped from the request's record, which is a plain answer's.
 */
export async function passedThroughMessage(run: LoopRun, step: AnsweredStep): Promise<{ message: MessageResponse; attempt: Attempt; headers: Record<string, string> | undefined }> {
  const { result, attempt, index, records, holdId, hops, refused } = step;
  const { message } = result;
  const reading = readStepContent(message.content, run.setup, run.tally.sources);
  await finishStep(run, { attempt, index, records, reading, usage: stepUsageOf(message.usage), refused, stopReason: message.stop_reason, holdId, messageId: message.id });
  run.context.loopSteps = null;
  const finalized = finalizeMessage(message, answerAdditions(run.plan, attempt, () => records, run.context));
  // The upstreams bill the refusals moved on from: the answer is charged them, each at its own prices.
  const charges = refused.map((refusal) => refusalCharge(refusal.attempt, refusal.usage, refusal.billed));
  const served = charges.length > 0 ? { ...finalized, usage: withRefusalCharges(finalized.usage, attempt.model, charges) } : finalized;
  return { message: withRefusedHops(served, hops, attempt.model), attempt, headers: withMaxTokensHeader(ownKeyRateLimitHeaders(attempt, result.upstreamHeaders), run.original.max_tokens, attempt) };
}

/** A stream step as the loop started it. */
export interface StartedPassThrough {
  result: StartedStream;
  attempt: Attempt;
  index: number;
  records: AttemptRecord[];
  holdId: string | undefined;
}

/**
 * Goes on with the loop after the passed-through stream's refusal: the step's next model, which runs the rest
 * of the loop (its events numbered from 0, its closing usage the loop's, the refused call charged in it), or
 * null when no other model answers the step. `outcome` is the refused stream's: routing hears the refusal.
 */
export type LoopAfterRefusal = (outcome: StreamOutcome, refused: StreamRefusal) => Promise<NextModelStream | null>;

/**
 * The step's stream as a plain request's: its events forwarded with the gateway's additions, routing told how
 * it ended, and the step's hold settled at its end to what the upstream reported. A refusal moves on as a
 * plain stream's does (refusal-fallback-stream.ts): a `fallback` block, then `afterRefusal`'s loop, whose
 * step takes over the hold and charges the refused call; with no other model answering, the refusal ends it.
 */
export function passedThroughStream(run: LoopRun, step: StartedPassThrough, afterRefusal: LoopAfterRefusal): AsyncIterable<SseEvent> {
  const { deps, plan, context } = run;
  context.loopSteps = null;
  const served = step.records.findLast((record) => record.index === step.index) as AttemptRecord;
  const messageId = streamMessageId(step.result);
  const outcome = streamOutcomeStage(deps.planner, plan, context, served, messageId, messageId);
  const events = amendStream(staged(streamEvents(step.result), outcome), answerAdditions(plan, step.attempt, () => context.trail.records, context));
  let movedOn = false;
  const next: StartNextModel = async (refused) => {
    // Once moved on, a refusal closing the loop's stream is one its own steps already moved on from.
    if (movedOn) return null;
    const loop = await afterRefusal(outcome, refused);
    if (loop === null) return null;
    movedOn = true;
    // The answer is the loop's now: the request's record lists its steps.
    context.loopSteps = run.tally.steps;
    return loop;
  };
  // The loop charges the refused call with the step it moved on to: no charge added to its closing usage here.
  return spliceRefusalFallbacks(staged(events, holdSettlement(run, step.attempt, step.holdId, () => movedOn)), step.attempt.model, next);
}

/** A usage with a later report's counts laid over it (a `message_delta` restates only some, some as null). */
function reportedOver(base: Partial<Usage>, update: Partial<Usage> | undefined): Partial<Usage> {
  const merged: Record<string, unknown> = { ...base };
  for (const [name, value] of Object.entries(update ?? {})) if (value !== null && value !== undefined) merged[name] = value;
  return merged as Partial<Usage>;
}

/**
 * The stage that settles the step's hold when its stream ends, however it ends, to the usage reported by then;
 * not when the step `movedOn` after a refusal (the next model's step settles it, the refused call included).
 */
function holdSettlement(run: LoopRun, attempt: Attempt, holdId: string | undefined, movedOn: () => boolean): EventStage {
  let reported: Partial<Usage> = {};
  return {
    event(event) {
      const name = sseEventName(event);
      // Both events are objects by now (the additions' stage parsed them): reading them costs no parse.
      if (name === 'message_start') reported = reportedOver({}, eventPayload<MessageStartEvent>(event).message.usage);
      else if (name === 'message_delta') reported = reportedOver(reported, eventPayload<MessageDeltaEvent>(event).usage as Partial<Usage>);
      return event;
    },
    end() {
      if (movedOn()) return;
      const usage = stepUsageOf(reported);
      settleStepHold(run, holdId, { usage, cost: stepCost(usage, attempt) });
    },
  };
}
