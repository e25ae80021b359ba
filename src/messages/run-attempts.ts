/**
 * Runs a plan's attempts in order until one answers. A retryable failure, a refusal, a vendor that cannot
 * express the request (`UnsupportedFeatureError`) or a BYOK credential deleted since planning
 * (`CredentialUnavailableError`) moves on; any other failure caused by the request itself stops at once,
 * before another endpoint is called. The runner is generic over what an attempt produces (a message, a stream
 * whose first event has arrived, a token count) and never throws: it returns which attempt answered, or the
 * error to answer with, and a record of every attempt, so that the same call serves JSON, streams and each
 * step of a server-side tool loop (which starts its later steps with the attempt that served the first).
 */
import type { AttemptStatus, Usage } from '#src/api-types.ts';
import { ThreadRejectedError } from '#src/thread-errors.ts';
import {
  AllAttemptsFailedError,
  CredentialUnavailableError,
  GatewayError,
  OutOfTimeError,
  UnsupportedFeatureError,
  UpstreamError,
} from '#src/errors.ts';
import { isByok, type Attempt, type AttemptOutcome } from '#src/routing/attempt.ts';
import { ownKeyRateLimitHeadersOfFailures, type RateLimitedAttempt } from '#src/messages/own-key-rate-limits.ts';
import { loweredMaxTokens } from '#src/messages/max-tokens-header.ts';

/** How one attempt ended: reported in `gateway_metadata.attempts`, and fed back to sticky pins and endpoint statistics. */
export interface AttemptRecord extends AttemptOutcome {
  /** The upstream's HTTP status: 200 for an answer or a refusal, null when none arrived or nothing was sent. */
  httpStatus: number | null;
  /**
   * What the vendor reported it used before the attempt failed (an OpenAI Responses `response.failed`), which
   * it bills: the request is charged for it whatever answered in the end.
   */
  billedUsage?: Usage;
  /**
   * What a refused attempt the request moved on from reported it used (its answer's usage, a stream's events):
   * its upstream bills it, so the generation record and the key's spending charge it at the attempt's
   * endpoint's prices, whatever came after (an answer, an error, a client that left), and its span carries it.
   * Absent on a refusal that is the answer (its usage is the answer's).
   */
  refusedUsage?: Partial<Usage>;
  /**
   * Its upstream does not bill that refusal (one before any output in a category Anthropic does not bill,
   * src/messages/refusal-billing.ts): the record keeps its tokens at no cost.
   */
  refusalUnbilled?: true;
  /**
   * The attempt failed because the request was cancelled under it (the client left, or the gateway is
   * shutting down), not because of its endpoint: routing's health counts (the circuit breaker, endpoint
   * statistics) do not hear of it. A request out of its time budget is not a cancellation: the endpoint was slow.
   */
  cancelled?: true;
  /**
   * The model the vendor said answered (its response's `model`), for an attempt that answered (a success or
   * a refusal) when its answer named one: the GenAI conventions' `gen_ai.response.model`, which may differ
   * from the id asked for (`attempt.upstreamModel`), e.g. a dated snapshot of an alias.
   */
  responseModel?: string;
  /**
   * The request's fields the attempt's translated vendor was not sent (`X-Switchboard-Dropped-Fields`), for an
   * attempt that answered; absent when none were.
   */
  droppedFields?: readonly string[];
  /**
   * The `max_tokens` the attempt's endpoint was sent when the gateway lowered the request's to the endpoint's
   * output limit (src/request/output-limit.ts); absent when it went as asked, or nothing was sent.
   */
  maxTokensSent?: number;
}

/** Whether the signal was aborted by a cancellation rather than by the request's time budget. */
export function isCancellation(signal: AbortSignal): boolean {
  return signal.aborted && (signal.reason as { name?: unknown } | undefined)?.name !== 'TimeoutError';
}

/**
 * Whether the signal was aborted because the client went away (src/http/request-signal.ts), not by the time
 * budget or a shutdown: an upstream read that failed then is the client's leaving, not its endpoint's failure.
 */
export function clientLeft(signal: AbortSignal): boolean {
  return signal.aborted && (signal.reason as { name?: unknown } | undefined)?.name === 'AbortError';
}

/** How a run ended: the answer and the attempt that gave it, or the error to answer with; every attempt's record either way. */
export type AttemptsRun<T> =
  | { ok: true; result: T; attempt: Attempt; index: number; records: AttemptRecord[] }
  | { ok: false; error: unknown; records: AttemptRecord[] };

/** Options of one run. */
export interface RunAttemptsOptions<T> {
  /** Aborted when the client leaves or the request's time budget is spent. */
  signal: AbortSignal;
  /** A refusal moves on to the next model (not the next provider of the same model); the last one is returned. */
  isRefusal?(result: T): boolean;
  /** What an answer reported it used: a refusal moved on from keeps it in its record (`refusedUsage`). */
  reportedUsage?(result: T): Partial<Usage> | undefined;
  /** Whether a refusal's upstream bills it (src/messages/refusal-billing.ts); absent: billed. */
  refusalBilled?(result: T, attempt: Attempt): boolean;
  /** The model an answer says generated it (its `model`), kept in the attempt's record. */
  responseModel?(result: T): string | undefined;
  /** The request's fields the answer's vendor was not sent, kept in the attempt's record when there are any. */
  droppedFields?(result: T): readonly string[] | undefined;
  /**
   * The request's `max_tokens`: each attempt sent a lower value (its endpoint's output limit) keeps that in
   * its record, as a tool loop's later steps give no header to say it.
   */
  maxTokens?: number;
  /**
   * The index of the attempt to try first, the others following in plan order if it fails: a tool loop's later
   * steps pass the index that served its first step, so they stay on that provider and key.
   */
  startWith?: number;
  /**
   * Attempts not to try at all: a stream's later run after a refusal skips what came before and the refused
   * models; a thread's later loop steps skip every account but the thread's.
   */
  skip?: ((attempt: Attempt, index: number) => boolean) | undefined;
}

/**
 * The attempt to try at a step: plan order, or the `startWith` attempt first and then the others in plan
 * order (worked out per step, so a run allocates no order list).
 */
function attemptAt(step: number, startWith: number | undefined, count: number): number {
  if (startWith === undefined || startWith <= 0 || startWith >= count) return step;
  if (step === 0) return startWith;
  return step <= startWith ? step - 1 : step;
}

// The record status of an error an attempt may move on from, or null when the error ends the run.
function skippedStatus(error: unknown): AttemptStatus | null {
  if (error instanceof UnsupportedFeatureError) return 'unsupported';
  if (error instanceof CredentialUnavailableError) return 'credential_unavailable';
  if (error instanceof UpstreamError) return error.kind;
  return null;
}

/** Marks the last record with the `max_tokens` its attempt was sent, when below the request's `asked`. */
function withMaxTokensSent(records: AttemptRecord[], asked: number | undefined): void {
  const last = records[records.length - 1] as AttemptRecord;
  const sent = asked === undefined ? undefined : loweredMaxTokens(asked, last.attempt);
  if (sent !== undefined) last.maxTokensSent = sent;
}

/** Runs the attempts until one answers; `execute` makes one attempt's call. */
export async function runAttempts<T>(
  attempts: readonly Attempt[],
  execute: (attempt: Attempt) => Promise<T>,
  options: RunAttemptsOptions<T>,
): Promise<AttemptsRun<T>> {
  const records: AttemptRecord[] = [];
  const failures: GatewayError[] = [];
  let refused: { result: T; attempt: Attempt; index: number } | undefined;
  // A set, not the last model: with partition "none" a refused model's endpoints can come back later in the plan.
  const refusedModels = new Set<string>();
  // An endpoint whose vendor lacks a feature may be followed by one that has it; when none has, the first
  // such 400 is the answer.
  let unsupported: UnsupportedFeatureError | undefined;
  // The caller's own keys' 429s: their rate-limit headers describe the caller's account, a 429 passes them on.
  let ownRateLimited: RateLimitedAttempt[] | undefined;

  for (let step = 0; step < attempts.length; step += 1) {
    const index = attemptAt(step, options.startWith, attempts.length);
    const attempt = attempts[index] as Attempt;
    if (refusedModels.has(attempt.model) || options.skip?.(attempt, index)) continue;
    if (options.signal.aborted) break;
    const started = performance.now();
    const record = (status: AttemptStatus, httpStatus: number | null): void => {
      records.push({ attempt, index, status, httpStatus, durationMs: Math.round(performance.now() - started) });
      if (status !== 'unsupported' && status !== 'credential_unavailable') withMaxTokensSent(records, options.maxTokens);
    };
    // An answer's record, with the model it names when it names one.
    const answered = (status: 'success' | 'refusal', result: T): void => {
      const responseModel = options.responseModel?.(result);
      const durationMs = Math.round(performance.now() - started);
      records.push(responseModel ? { attempt, index, status, httpStatus: 200, durationMs, responseModel } : { attempt, index, status, httpStatus: 200, durationMs });
      const dropped = options.droppedFields?.(result);
      if (dropped) (records[records.length - 1] as AttemptRecord).droppedFields = dropped;
      withMaxTokensSent(records, options.maxTokens);
    };
    try {
      const result = await execute(attempt);
      if (options.isRefusal?.(result)) {
        answered('refusal', result);
        // Charged as moved on from until it turns out to be the answer (below).
        const reported = options.reportedUsage?.(result);
        if (reported) (records[records.length - 1] as AttemptRecord).refusedUsage = reported;
        if (options.refusalBilled?.(result, attempt) === false) (records[records.length - 1] as AttemptRecord).refusalUnbilled = true;
        refused = { result, attempt, index };
        refusedModels.add(attempt.model);
        continue;
      }
      answered('success', result);
      return { ok: true, result, attempt, index, records };
    } catch (error) {
      // An upstream's refusal of a thread turn is the answer, recorded as the request it refused.
      if (error instanceof ThreadRejectedError) record('invalid_request', error.status);
      const status = skippedStatus(error);
      if (status === null) return { ok: false, error, records };
      record(status, error instanceof UpstreamError ? (error.upstreamStatus ?? null) : null);
      if (error instanceof UpstreamError && error.billedUsage) (records[records.length - 1] as AttemptRecord).billedUsage = error.billedUsage;
      if (isCancellation(options.signal)) (records[records.length - 1] as AttemptRecord).cancelled = true;
      if (error instanceof UnsupportedFeatureError) unsupported ??= error;
      else if (error instanceof UpstreamError && !error.fallbackEligible) return { ok: false, error, records };
      else failures.push(error as GatewayError);
      if (error instanceof UpstreamError && error.kind === 'rate_limited' && error.upstreamHeaders && isByok(attempt)) (ownRateLimited ??= []).push({ attempt, error });
    }
  }
  if (refused) {
    // The last refusal is the answer: its usage is the answer's, not a refusal moved on from.
    const answer = records.findLast((entry) => entry.index === refused.index && entry.status === 'refusal');
    if (answer) {
      delete answer.refusedUsage;
      delete answer.refusalUnbilled;
    }
    return { ok: true, ...refused, records };
  }
  // Aborted for a reason the gateway names (its shutdown): that is the answer, whatever the attempts said.
  if (options.signal.aborted && options.signal.reason instanceof GatewayError) return { ok: false, error: options.signal.reason, records };
  if (unsupported && failures.length === 0) return { ok: false, error: unsupported, records };
  if (options.signal.aborted && failures.length === 0) return { ok: false, error: new OutOfTimeError(), records };
  const tried = records.map((entry) => ({ model: entry.attempt.model, provider: entry.attempt.provider.displayName, status: entry.status, httpStatus: entry.httpStatus }));
  return { ok: false, error: new AllAttemptsFailedError(tried, failures, ownRateLimited && ownKeyRateLimitHeadersOfFailures(ownRateLimited)), records };
}
