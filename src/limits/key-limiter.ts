/**
 * The key limiter: admits each `/messages` request against its key's limits before anything is sent, and
 * settles it when its outcome is known. Reserve then settle: a request reserves its worst case (credit and
 * tokens) and takes its request and stream slots in one atomic step, and gives back what it did not use once
 * its usage is known (JSON or stream, failed or cancelled alike: the generation record's cost is the number).
 *
 * With Redis the counts are shared by every instance; while Redis is unreachable (or a command fails) this
 * instance counts on its own (failing open), and what it counted and settled meanwhile is carried and replayed
 * into Redis when it returns (limit-counting.ts). Spending is written to the database (spend-ledger.ts) for every key, so periods survive restarts.
 * A key without limits costs a request one null check here.
 */
import { Counter } from 'prom-client';
import { utcDay } from '#src/limits/limit-period.ts';
import { ALL_LIMITS, buildAdmissionRequest, buildTopUpRequest, PART_LIMITS, STREAM_ONLY, type BuiltRequest, type LimitChoice } from '#src/limits/admission-request.ts';
import type { AdmissionRefusal, AdmissionResult, AdmittedWindow, CheckResult, LimitStore, StoreOperation } from '#src/limits/limit-store.ts';
import { LimitCounting } from '#src/limits/limit-counting.ts';
import type { MemoryLimitStore } from '#src/limits/memory-limit-store.ts';
import { admittedWindowHeaders, refusalError } from '#src/limits/limit-answers.ts';
import { add, settledAmounts, type UsageAmounts } from '#src/limits/usage-amounts.ts';
import { remainder, RequestParts } from '#src/limits/request-parts.ts';
import type { AdmissionContext, AdmissionPlan, KeyLimiterOptions, SettledRequest } from '#src/limits/key-limiter-types.ts';

// The two operations a store runs for the limiter, bound once.
const checkIn: StoreOperation<CheckResult> = (store, request) => store.check(request);
const admitIn: StoreOperation<AdmissionResult> = (store, request) => store.admit(request);

/** The limiter of one gateway instance. */
export class KeyLimiter {
  /** Where the counts are kept: Redis, this process, and the holds of requests in progress. */
  readonly #counting: LimitCounting;
  /** The parts (tool-loop steps, the moderation screening) of requests in progress. */
  readonly #parts = new RequestParts();
  readonly #options: KeyLimiterOptions;
  readonly #now: () => number;
  readonly #refusals: Counter<'limit'> | undefined;

  constructor(options: KeyLimiterOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#counting = new LimitCounting(options);
    this.#refusals = options.registry
      ? new Counter({ name: 'switchboard_key_limit_refusals_total', help: 'Requests refused by their key\'s own limits, by limit.', labelNames: ['limit'] as const, registers: [options.registry] })
      : undefined;
  }

  /** The in-process store (what every instance counts in while Redis is away). */
  get memory(): MemoryLimitStore {
    return this.#counting.memory;
  }

  /** The store counts are read from now: Redis when it is there, this process otherwise. */
  currentStore(): LimitStore {
    return this.#counting.currentStore();
  }

  /**
   * Admits a planned request or throws the 402 or 429 that names the limit it hit. `screening`: the
   * moderation model's screening calls it makes first, reserved in the same hold (one check, one request).
   * Returns the rate-limit headers of the key's per-minute windows as the admission left them (for the
   * answer), or undefined when the key has no per-minute limit.
   */
  async admit(plan: AdmissionPlan, context: AdmissionContext, screening: readonly AdmissionPlan[] = []): Promise<Record<string, string> | undefined> {
    // Every request is admitted, most by a key without limits: that answer needs no second async call.
    const limits = context.caller.limits;
    if (!limits) return undefined;
    const admitted = await this.#admitHold(plan, context, context.generationId, ALL_LIMITS, screening);
    return admitted?.window ? admittedWindowHeaders(limits, admitted.window, admitted.nowMs) : undefined;
  }

  /**
   * Admits one upstream call of a tool loop: each step reserves its own worst case (credit and tokens) and
   * counts as a request, under the hold `<generation id>:step-<n>`, and settles to its real cost with
   * `settleStep` as soon as it is answered. A streamed loop takes its stream slot once, before the first step
   * (`admitLoopStream`). Returns the step's hold id, or undefined when the key has nothing to hold.
   */
  admitStep(plan: AdmissionPlan, context: AdmissionContext, step: number): Promise<string | undefined> {
    return this.#admitPart(plan, context, `${context.generationId}:step-${step}`);
  }

  /**
   * Admits the `moderation` plugin's screening calls of a tool loop before they are sent, as a step: they reserve
   * their worst case (credit and tokens) under the one hold `<generation id>:moderation` and count as a request,
   * as every upstream call of a loop does. (A plain request reserves its screening with itself, in `admit`.)
   * Returns the hold id, or undefined when the key has nothing to hold.
   */
  admitScreening(calls: readonly AdmissionPlan[], context: AdmissionContext): Promise<string | undefined> {
    const [first, ...others] = calls;
    if (!first) return Promise.resolve(undefined);
    return this.#admitPart(first, context, `${context.generationId}:moderation`, others);
  }

  /** Admits a call settled before its request (a loop's step or screening): its worst case, and a request. */
  async #admitPart(plan: AdmissionPlan, context: AdmissionContext, holdId: string, also: readonly AdmissionPlan[] = []): Promise<string | undefined> {
    const held = await this.#admitHold(plan, context, holdId, PART_LIMITS, also);
    if (!held) return undefined;
    this.#parts.opened(context.generationId, holdId);
    return holdId;
  }

  /**
   * Settles the screening call as soon as it has ended, the spending ledger included (every key, limited or
   * not): a request that fails or is refused after it has still spent it. Its cost is part of the answer's
   * `usage.cost`, its tokens are not, so the request's own settlement later counts only the rest. Without a
   * hold of its own (a plain request's, reserved with the request), the request's hold releases its usage.
   */
  settleScreening(context: AdmissionContext, holdId: string | undefined, actual: UsageAmounts): void {
    const nowMs = this.#now();
    this.#options.ledger.add(context.caller.keyHash, utcDay(nowMs), actual.cost);
    this.#parts.settled(context.generationId, holdId === undefined ? { carried: actual } : { holdId }, { cost: actual.cost, tokens: 0 });
    if (holdId === undefined) return;
    const hold = this.#counting.take(holdId);
    if (!hold) return;
    this.#counting.release(hold, actual, nowMs);
  }

  /**
   * Tops up an admitted request's reservation once its prompt grew after admission (the web plugins' results
   * and pages, which must not be fetched for a key its limits refuse): the difference between the worst case
   * of the plan that is sent and of the plan that was admitted, credit and tokens, under the hold
   * `<generation id>:top-up`, released with the request. Never refuses: the request was admitted by the rule
   * every request is (the spending and others' reservations under the limit), and only what it holds from
   * the others grows, so concurrent requests see it and overshoot by no more than its real worst case.
   */
  async topUp(admitted: AdmissionPlan, sent: AdmissionPlan, context: AdmissionContext): Promise<void> {
    const limits = context.caller.limits;
    if (!limits) return;
    const holdId = `${context.generationId}:top-up`;
    const request = buildTopUpRequest({ keyHash: context.caller.keyHash, limits, id: holdId, admitted, sent, nowMs: this.#now(), holdMs: this.#options.holdMs });
    if (!request) return;
    const { result, heldBy } = await this.#counting.run(request, 'counted', admitIn);
    if (!result.ok) return;
    this.#counting.keep(request, result.seed, heldBy);
    // An open part: the request's settlement releases it (to nothing) with its own hold (to the real usage).
    this.#parts.opened(context.generationId, holdId);
  }

  /** Takes a streamed tool loop's one stream slot (released when the loop's outcome settles). */
  async admitLoopStream(plan: AdmissionPlan, context: AdmissionContext): Promise<void> {
    await this.#admitHold(plan, context, context.generationId, STREAM_ONLY);
  }

  /**
   * Settles one tool-loop step to what it used, the spending ledger included: a loop refused or failed at a
   * later step has still spent what its earlier steps cost.
   */
  settleStep(generationId: string, holdId: string, actual: UsageAmounts): void {
    if (this.#parts.isOpen(generationId, holdId)) this.#parts.settled(generationId, { holdId }, actual);
    const hold = this.#counting.take(holdId);
    if (!hold) return;
    const nowMs = this.#now();
    this.#options.ledger.add(hold.keyHash, utcDay(nowMs), actual.cost);
    this.#counting.release(hold, actual, nowMs);
  }

  /**
   * Checks a tool loop before anything of it runs (its plugins' searches, fetches and moderation included) by
   * the rules of a plain request's admission, taking nothing: throws the 402 or 429 an admission would give
   * now. The steps' admissions stay authoritative and count the loop; this counts nothing.
   */
  async checkLoop(request: Pick<AdmissionPlan['request'], 'stream'>, context: AdmissionContext): Promise<void> {
    const limits = context.caller.limits;
    if (!limits) return;
    const built = buildAdmissionRequest({ keyHash: context.caller.keyHash, limits, id: context.generationId, which: ALL_LIMITS, stream: request.stream === true, nowMs: this.#now(), holdMs: this.#options.holdMs });
    if (!built) return;
    const { result } = await this.#counting.run(built.request, 'checked', checkIn);
    if (!result.ok) throw this.#refused(result, built);
  }

  /**
   * Takes the holds `which` asks for (reserving the worst case of `plan`, and of each call of `also`), if the
   * key has such limits; returns the windows the admission left (and when), or undefined when nothing was held.
   */
  async #admitHold(plan: AdmissionPlan, context: AdmissionContext, holdId: string, which: LimitChoice, also: readonly AdmissionPlan[] = []): Promise<{ window: AdmittedWindow | undefined; nowMs: number } | undefined> {
    const limits = context.caller.limits;
    if (!limits) return undefined;
    const calls = [plan, ...also];
    const built = buildAdmissionRequest({ keyHash: context.caller.keyHash, limits, id: holdId, which, stream: plan.request.stream === true, calls, nowMs: this.#now(), holdMs: this.#options.holdMs });
    if (!built) return undefined;
    const { request } = built;
    const { result, heldBy } = await this.#counting.run(request, 'counted', admitIn);
    if (!result.ok) throw this.#refused(result, built);
    this.#counting.keep(request, result.seed, heldBy, result.window);
    return { window: result.window, nowMs: request.nowMs };
  }

  /** The error a refusal answers with, counted by the limit it names. */
  #refused(refusal: AdmissionRefusal, built: BuiltRequest): Error {
    if (refusal.limit === 'seed') return new Error('the period spending was not seeded');
    this.#refusals?.inc({ limit: refusal.limit });
    return refusalError(refusal, built.limits, built.period, this.#now());
  }

  /**
   * Settles a finished request: its cost joins the ledger, its hold (if any) is released to its real usage.
   * What its parts (a tool loop's steps, the moderation screening) settled already is not counted again.
   * Returns at once.
   */
  settle(finished: SettledRequest): void {
    const nowMs = this.#now();
    const parts = this.#parts.take(finished.id);
    const actual = parts ? remainder(settledAmounts(finished.usage), parts.counted) : settledAmounts(finished.usage);
    this.#options.ledger.add(finished.keyHash, utcDay(finished.startedAt), actual.cost);
    // A part still open (a cancelled step) is released now.
    for (const holdId of parts?.open ?? []) {
      const open = this.#counting.take(holdId);
      if (!open) continue;
      this.#counting.release(open, { cost: 0, tokens: 0 }, nowMs);
    }
    const hold = this.#counting.take(finished.id);
    if (!hold) return;
    this.#counting.release(hold, parts ? add(actual, parts.carried) : actual, nowMs);
  }

  /** Holds not yet settled (tests, shutdown checks). */
  get openHolds(): number {
    return this.#counting.openHolds;
  }

  /** Waits (at most `timeoutMs`) for the settlements on their way to Redis. */
  close(timeoutMs: number): Promise<void> {
    return this.#counting.close(timeoutMs);
  }
}
