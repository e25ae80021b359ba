/**
 * What the messages service does with an attempt's answer, for a plain request and for every step of a tool
 * loop alike: start a stream (an attempt answers once its first event has arrived, so every failure before
 * the first byte is still a failover), settle a run (feed its outcomes back to routing, throw its error), log
 * what an adapter changed to fit the vendor.
 */
import type { Usage } from '#src/api-types.ts';
import { UpstreamError } from '#src/errors.ts';
import type { Logger } from '#src/logger.ts';
import { peekEventPayload, sseEventName, type AdapterMessage, type AdapterStream, type SseEvent } from '#src/providers/provider-adapter.ts';
import { readyEventsOf, type EventStage, type ReadyEventIterator, type StreamEnd } from '#src/providers/event-stages.ts';
import type { Attempt } from '#src/routing/attempt.ts';
import type { RequestPlan, RequestPlanner } from '#src/routing/plan-request.ts';
import { clientLeft, type AttemptRecord, type AttemptsRun } from '#src/messages/run-attempts.ts';
import type { MessagesRequestContext } from '#src/messages/request-context.ts';

/** A stream whose first event has arrived, so the attempt counts as answered. */
export interface StartedStream {
  first: SseEvent;
  rest: AsyncIterator<SseEvent>;
  warnings: string[];
  upstreamHeaders?: AdapterStream['upstreamHeaders'];
  droppedFields?: AdapterStream['droppedFields'];
}

/** The id of a started stream's message, from its first event (`message_start`), or undefined. */
export function streamMessageId(started: StartedStream): string | undefined {
  if (sseEventName(started.first) !== 'message_start') return undefined;
  const id = peekEventPayload<{ message?: { id?: unknown } }>(started.first).message?.id;
  return typeof id === 'string' ? id : undefined;
}

/** The usage a started stream's first event (`message_start`) announced, or undefined. */
export function streamStartedUsage(started: StartedStream): Partial<Usage> | undefined {
  if (sseEventName(started.first) !== 'message_start') return undefined;
  return peekEventPayload<{ message?: { usage?: Partial<Usage> } }>(started.first).message?.usage;
}

/** The model a JSON answer names (its `model`, before the gateway puts its slug there). */
export function messageResponseModel(answer: { message: { model?: unknown } }): string | undefined {
  const { model } = answer.message;
  return typeof model === 'string' && model !== '' ? model : undefined;
}

/** The request's fields a JSON answer's vendor was not sent, when there are any. */
export function messageDroppedFields(answer: AdapterMessage): readonly string[] | undefined {
  return answer.droppedFields;
}

/** The request's fields a started stream's vendor was not sent, when there are any. */
export function streamDroppedFields(started: StartedStream): readonly string[] | undefined {
  return started.droppedFields;
}

/** The model a started stream names: its first event's (`message_start`) `message.model`, before the gateway's slug. */
export function streamResponseModel(started: StartedStream): string | undefined {
  if (sseEventName(started.first) !== 'message_start') return undefined;
  const message = peekEventPayload<{ message?: { model?: unknown } }>(started.first).message;
  return message ? messageResponseModel({ message }) : undefined;
}

/**
 * Waits for a stream's first event; a stream that ends before one is a malformed answer (a failover). The
 * upstream has answered with its success headers by then, so whatever fails now failed inside a 200 answer
 * (an in-stream error event, a cut stream): the attempt records the 200, and the failure's kind says how.
 */
export async function startStream(attempt: Attempt, stream: AdapterStream): Promise<StartedStream> {
  const rest = stream.events[Symbol.asyncIterator]();
  let first: IteratorResult<SseEvent>;
  try {
    first = await rest.next();
  } catch (error) {
    if (error instanceof UpstreamError) error.upstreamStatus = 200;
    throw error;
  }
  if (first.done) {
    throw new UpstreamError({ provider: attempt.provider.slug, kind: 'malformed_response', upstreamStatus: 200, message: `Upstream ${attempt.provider.slug} sent an empty stream` });
  }
  const started: StartedStream = stream.upstreamHeaders ? { first: first.value, rest, warnings: stream.warnings, upstreamHeaders: stream.upstreamHeaders } : { first: first.value, rest, warnings: stream.warnings };
  // Only a translated vendor's stream that dropped something pays for the list.
  if (stream.droppedFields) started.droppedFields = stream.droppedFields;
  return started;
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

/** The events of a started stream, the first one included, handed on from the adapter's own iterator. */
class StartedEvents implements AsyncIterableIterator<SseEvent>, ReadyEventIterator {
  #first: SseEvent | undefined;
  readonly #rest: AsyncIterator<SseEvent>;
  readonly #ready: ReadyEventIterator | undefined;

  constructor(started: StartedStream) {
    this.#first = started.first;
    this.#rest = started.rest;
    this.#ready = readyEventsOf(started.rest);
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<SseEvent> {
    return this;
  }

  next(): Promise<IteratorResult<SseEvent>> {
    const first = this.#first;
    if (first === undefined) return this.#rest.next();
    this.#first = undefined;
    return Promise.resolve({ done: false, value: first });
  }

  nextReady(): SseEvent | undefined {
    const first = this.#first;
    if (first === undefined) return this.#ready?.nextReady();
    this.#first = undefined;
    return first;
  }

  async return(): Promise<IteratorResult<SseEvent>> {
    this.#first = undefined;
    await this.#rest.return?.();
    return DONE;
  }
}

/**
 * The started stream's events, the first one included; stops the upstream read when the consumer stops early.
 * A plain iterator over the adapter's own, not one more generator every event passes through; what the
 * adapter holds ready is handed on without a promise too (`nextReady`).
 */
export function streamEvents(started: StartedStream): AsyncIterableIterator<SseEvent> {
  return new StartedEvents(started);
}

/**
 * Feeds a run's outcomes back to routing and into the request's trail (its generation record: every run of a
 * tool loop adds its attempts), then answers with the run's error when no attempt answered.
 */
export function settle<T>(
  planner: RequestPlanner,
  plan: RequestPlan,
  context: MessagesRequestContext,
  run: AttemptsRun<T>,
  outputTokens?: (result: T) => number,
  messageId?: (result: T) => string,
): Extract<AttemptsRun<T>, { ok: true }> {
  // One literal, no spread: an absent count is read as none (src/routing/plan-request.ts).
  const served = run.ok ? { index: run.index, outputTokens: outputTokens?.(run.result), messageId: messageId?.(run.result) } : null;
  // An attempt cancelled under the request (the client left) says nothing about its endpoint's health.
  planner.recordOutcomes(plan, run.records.some((record) => record.cancelled) ? run.records.filter((record) => !record.cancelled) : run.records, served);
  addToTrail(plan, context, run);
  if (!run.ok) throw run.error;
  return run;
}

// The run's attempts join the request's trail (its generation record: every run of a tool loop adds its own).
function addToTrail<T>(plan: RequestPlan, context: MessagesRequestContext, run: AttemptsRun<T>): void {
  const records = context.trail.records.length === 0 ? run.records : [...context.trail.records, ...run.records];
  context.trail = { strategy: plan.strategy, records, served: run.ok ? run.attempt : context.trail.served };
}

/**
 * `settle` for a stream, whose served attempt is known healthy only when its stream ends: an upstream that
 * sends its first events and then fails (an `overloaded_error` event mid-stream) must count against its
 * endpoint's circuit and its session's pin, and a success heard at the first event would clear the failures
 * counted before. Routing hears the other attempts now, the served one from `streamOutcomeStage` at the end.
 */
export function settleStream<T>(planner: RequestPlanner, plan: RequestPlan, context: MessagesRequestContext, run: AttemptsRun<T>): Extract<AttemptsRun<T>, { ok: true }> {
  if (!run.ok) return settle(planner, plan, context, run);
  // The common case, the first attempt answering: nothing else to report, no list made.
  if (run.records.length > 1) {
    const others = run.records.filter((record) => record.index !== run.index && !record.cancelled);
    if (others.length > 0) planner.recordOutcomes(plan, others, null);
  }
  addToTrail(plan, context, run);
  return run;
}

/**
 * The stage that tells routing how a stream settled by `settleStream` ended: an upstream failure after the
 * first event is the served attempt's outcome (and its status in the generation's attempts, with the usage the
 * vendor reported it billed, when it did); a complete stream, or one the client left (abandoned, or failed by
 * the read the client's leaving aborted: a tool loop's step), is its success as before.
 * A stream that ends in a refusal is recorded as one (`refused`), as a JSON answer's refusal is: when the
 * request moved on to the next model (`movedOn`), routing hears the refusal as an attempt that did not serve
 * (no sticky pin, no latency sample: the endpoint's circuit hears it answered), and the served stream's own
 * stage reports the success.
 */
export class StreamOutcome implements EventStage {
  readonly #planner: RequestPlanner;
  readonly #plan: RequestPlan;
  readonly #context: MessagesRequestContext;
  readonly #messageId: string | undefined;
  readonly #clientMessageId: string | undefined;
  // The attempt's record as it stands in the request's trail (replaced there when its status changes).
  #record: AttemptRecord;
  #movedOn = false;

  /**
   * `clientMessageId`: the id the client was given, when not this stream's own (a stream spliced in after a
   * refusal goes on under the refused stream's `message_start`): a thread's continue naming it resumes here.
   */
  constructor(planner: RequestPlanner, plan: RequestPlan, context: MessagesRequestContext, served: AttemptRecord, messageId?: string, clientMessageId?: string) {
    this.#planner = planner;
    this.#plan = plan;
    this.#context = context;
    this.#record = served;
    this.#messageId = messageId;
    this.#clientMessageId = clientMessageId;
  }

  event(event: SseEvent): SseEvent {
    return event;
  }

  /** The stream said `stop_reason: "refusal"`: its attempt's record in the trail becomes a refusal. */
  refused(): void {
    if (this.#record.status === 'refusal') return;
    this.#replace({ ...this.#record, status: 'refusal' });
  }

  /**
   * The request moved on from this stream's refusal to the next model: the stream is left, not served, and
   * what it reported (`usage`) is charged on its record whatever the next model's stream does, unless its
   * upstream does not bill it (`billed` false, src/messages/refusal-billing.ts): then its tokens at no cost.
   */
  movedOn(usage: Partial<Usage>, billed = true): void {
    this.refused();
    this.#replace(billed ? { ...this.#record, refusedUsage: usage } : { ...this.#record, refusedUsage: usage, refusalUnbilled: true });
    this.#movedOn = true;
  }

  end(how: StreamEnd): void {
    if (this.#movedOn) {
      this.#planner.recordOutcomes(this.#plan, [this.#record], null);
      return;
    }
    // A read stopped because the client left (its signal aborts the upstream call) is a stream left, as the
    // route's writer takes it for a plain stream; a loop's step, read by the loop, hears it as a failure.
    if (how.kind === 'failed' && how.error instanceof UpstreamError && !clientLeft(this.#context.signal)) {
      const { billedUsage } = how.error;
      const failed: AttemptRecord = billedUsage ? { ...this.#record, status: how.error.kind, billedUsage } : { ...this.#record, status: how.error.kind };
      this.#replace(failed);
      this.#planner.recordOutcomes(this.#plan, [failed], null);
      return;
    }
    this.#planner.recordOutcomes(this.#plan, [this.#record], { index: this.#record.index, messageId: this.#messageId });
    const client = this.#clientMessageId;
    if (client !== undefined && this.#messageId !== undefined && client !== this.#messageId) {
      this.#planner.recordThreadTurn(this.#plan, { clientMessageId: client, upstreamMessageId: this.#messageId, attempt: this.#record.attempt });
    }
  }

  #replace(record: AttemptRecord): void {
    const previous = this.#record;
    const { trail } = this.#context;
    this.#context.trail = { ...trail, records: trail.records.map((entry) => (entry === previous ? record : entry)) };
    this.#record = record;
  }
}

/** The stage that tells routing how a stream settled by `settleStream` ended (`StreamOutcome`). */
export function streamOutcomeStage(planner: RequestPlanner, plan: RequestPlan, context: MessagesRequestContext, served: AttemptRecord, messageId?: string, clientMessageId?: string): StreamOutcome {
  return new StreamOutcome(planner, plan, context, served, messageId, clientMessageId);
}

/** What an adapter dropped or changed to fit the vendor (a cache marker, an unsupported field) goes to the log. */
export function logWarnings(logger: Logger, attempt: Attempt, warnings: readonly string[], generationId: string): void {
  if (warnings.length === 0) return;
  logger.info('request adapted to the vendor', { generation_id: generationId, provider: attempt.provider.slug, model: attempt.model, warnings });
}
