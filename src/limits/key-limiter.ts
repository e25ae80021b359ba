/**
 * The key limiter: admits each `/messages` request against its key's limits before anything is sent, and
 * settles it when its outcome is known. Reserve then settle: a request reserves its worst case (credit and
 * tokens) and takes its request and stream slots in one atomic step, and gives back what it did not use once
 * its usage is known (JSON or stream, failed or cancelled alike: the generation record's cost is the number).
 *
 * With Redis the counts are shared by every instance; while Redis is unreachable (or a command fails) this
 * instance counts on its own (failing open), and what it settled meanwhile is replayed into Redis when it
 * returns. Spending is written to the database (spend-ledger.ts) for every key, so periods survive restarts.
 * A key without limits costs a request one null check here.
 */
import { Counter } from 'prom-client';
import { utcDay } from '#src/limits/limit-period.ts';
import { ALL_LIMITS, buildAdmissionRequest, buildTopUpRequest, holdOf, lostHoldOf, PART_LIMITS, STREAM_ONLY, type BuiltRequest, type LimitChoice } from '#src/limits/admission-request.ts';
import { runSeeded, type AdmissionRefusal, type AdmissionRequest, type AdmissionResult, type CheckResult, type Hold, type LimitStore, type StoreOperation } from '#src/limits/limit-store.ts';
import { MemoryLimitStore } from '#src/limits/memory-limit-store.ts';
import { SettlementReplay } from '#src/limits/settlement-replay.ts';
import { RedisLimitStore } from '#src/limits/redis-limit-store.ts';
import { refusalError } from '#src/limits/limit-answers.ts';
import { add, settledAmounts, type UsageAmounts } from '#src/limits/usage-amounts.ts';
import { remainder, RequestParts } from '#src/limits/request-parts.ts';
import type { AdmissionContext, AdmissionPlan, KeyLimiterOptions, SettledRequest } from '#src/limits/key-limiter-types.ts';

type HeldBy = 'redis' | 'process';

// The two operations a store runs for the limiter, bound once.
const checkIn: StoreOperation<CheckResult> = (store, request) => store.check(request);
const admitIn: StoreOperation<AdmissionResult> = (store, request) => store.admit(request);

/** The limiter of one gateway instance. */
export class KeyLimiter {
  readonly memory = new MemoryLimitStore();
  readonly #shared: RedisLimitStore | undefined;
  readonly #holds = new Map<string, Hold & { heldBy: HeldBy }>();
  /** The parts (tool-loop steps, the moderation screening) of requests in progress. */
  readonly #parts = new RequestParts();
  /** The last seed Redis reported per key and period, for replaying settlements made in process. */
  readonly #seeds = new Map<string, string>();
  readonly #replay: SettlementReplay;
  /** Settlements on their way to Redis: shutdown waits for them, or other instances would see the holds for minutes. */
  readonly #settling = new Set<Promise<void>>();
  /** Whether an admission or check in Redis failed (and was logged) with no admission there since. */
  #redisFailing = false;
  readonly #options: KeyLimiterOptions;
  readonly #now: () => number;
  readonly #refusals: Counter<'limit'> | undefined;
  readonly #stopReady: (() => void) | undefined;

  constructor(options: KeyLimiterOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#shared = options.redis ? new RedisLimitStore(options.redis.client) : undefined;
    this.#refusals = options.registry
      ? new Counter({ name: 'switchboard_key_limit_refusals_total', help: 'Requests refused by their key\'s own limits, by limit.', labelNames: ['limit'] as const, registers: [options.registry] })
      : undefined;
    this.#replay = new SettlementReplay(() => this.#shared, () => options.redis?.available() === true, options.logger);
    this.#stopReady = options.redis?.onReady(() => void this.#redisReturned());
  }

  /** The store counts are read from now: Redis when it is there, this process otherwise. */
  currentStore(): LimitStore {
    return this.#shared && this.#options.redis?.available() ? this.#shared : this.memory;
  }

  /**
   * Admits a planned request or throws the 402 or 429 that names the limit it hit. `screening`: the
   * moderation model's screening calls it makes first, reserved in the same hold (one check, one request).
   */
  async admit(plan: AdmissionPlan, context: AdmissionContext, screening: readonly AdmissionPlan[] = []): Promise<void> {
    // Every request is admitted, most by a key without limits: that answer needs no second async call.
    if (!context.caller.limits) return;
    await this.#admitHold(plan, context, context.generationId, ALL_LIMITS, screening);
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
    const hold = this.#holds.get(holdId);
    if (!hold) return;
    this.#holds.delete(holdId);
    this.#release(hold, actual, nowMs);
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
    const { result, heldBy } = await this.#run(request, 'counted', admitIn);
    if (!result.ok) return;
    this.#keep(request, result.seed, heldBy);
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
    const hold = this.#holds.get(holdId);
    if (!hold) return;
    this.#holds.delete(holdId);
    const nowMs = this.#now();
    this.#options.ledger.add(hold.keyHash, utcDay(nowMs), actual.cost);
    this.#release(hold, actual, nowMs);
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
    const { result } = await this.#run(built.request, 'checked', checkIn);
    if (!result.ok) throw this.#refused(result, built);
  }

  /** Takes the holds `which` asks for (reserving the worst case of `plan`, and of each call of `also`), if the key has such limits; false when nothing was held. */
  async #admitHold(plan: AdmissionPlan, context: AdmissionContext, holdId: string, which: LimitChoice, also: readonly AdmissionPlan[] = []): Promise<boolean> {
    const limits = context.caller.limits;
    if (!limits) return false;
    const calls = [plan, ...also];
    const built = buildAdmissionRequest({ keyHash: context.caller.keyHash, limits, id: holdId, which, stream: plan.request.stream === true, calls, nowMs: this.#now(), holdMs: this.#options.holdMs });
    if (!built) return false;
    const { request } = built;
    const { result, heldBy } = await this.#run(request, 'counted', admitIn);
    if (!result.ok) throw this.#refused(result, built);
    this.#keep(request, result.seed, heldBy);
    return true;
  }

  /** Keeps what an admission took, to settle it later in the store that holds it. */
  #keep(request: AdmissionRequest, seed: string | null, heldBy: HeldBy): void {
    if (heldBy === 'redis' && request.credit && seed) this.#seeds.set(`${request.keyHash}|${request.credit.period.id}`, seed);
    this.#holds.set(request.id, { ...holdOf(request, seed), heldBy });
  }

  /** The error a refusal answers with, counted by the limit it names. */
  #refused(refusal: AdmissionRefusal, built: BuiltRequest): Error {
    if (refusal.limit === 'seed') return new Error('the period spending was not seeded');
    this.#refusals?.inc({ limit: refusal.limit });
    return refusalError(refusal, built.limits, built.period);
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
      const open = this.#holds.get(holdId);
      if (!open) continue;
      this.#holds.delete(holdId);
      this.#release(open, { cost: 0, tokens: 0 }, nowMs);
    }
    const hold = this.#holds.get(finished.id);
    if (!hold) return;
    this.#holds.delete(finished.id);
    this.#release(hold, parts ? add(actual, parts.carried) : actual, nowMs);
  }

  /** Releases a hold to its real usage, in the store that holds it. */
  #release(hold: Hold & { heldBy: HeldBy }, actual: UsageAmounts, nowMs: number): void {
    if (hold.heldBy === 'process') {
      void this.memory.settle(hold, actual, nowMs);
      // The shared count misses this cost: replay it into the spending Redis had when we last saw it.
      const seed = hold.credit ? this.#seeds.get(`${hold.keyHash}|${hold.credit.period.id}`) : undefined;
      if (seed && this.#shared) this.#replay.queue({ ...hold, id: `${hold.id}:replay`, tokens: null, stream: false, seed }, actual, nowMs);
      return;
    }
    if (!this.#shared) return;
    const settling = this.#shared.settle(hold, actual, nowMs).catch((error: unknown) => {
      this.#options.redis?.fellBack('key_limits', error);
      this.#replay.queue(hold, actual, nowMs);
    });
    this.#settling.add(settling);
    void settling.finally(() => this.#settling.delete(settling));
  }

  /** Holds not yet settled (tests, shutdown checks). */
  get openHolds(): number {
    return this.#holds.size;
  }

  /** Waits (at most `timeoutMs`) for the settlements on their way to Redis. */
  async close(timeoutMs: number): Promise<void> {
    this.#stopReady?.();
    this.#replay.stop();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.#settling]), new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
    if (this.#replay.size > 0) this.#options.logger.warn('key limit settlements not replayed into redis at shutdown', { settlements: this.#replay.size });
  }

  /** Runs an admission (`counted`) or a check (`checked`) in Redis when it is there, else (or when it fails) in this process. */
  async #run<R extends CheckResult>(request: AdmissionRequest, done: 'counted' | 'checked', operation: StoreOperation<R>): Promise<{ result: R; heldBy: HeldBy }> {
    const redis = this.#options.redis;
    if (this.#shared && redis?.available()) {
      try {
        const result = await this.#withSeed(this.#shared, request, false, operation);
        // A check reads only: it passes on a Redis that refuses writes, so only an admission says it is back.
        if (this.#redisFailing && done === 'counted') this.#redisCounts();
        return { result, heldBy: 'redis' };
      } catch (error) {
        redis.fellBack('key_limits', error);
        // Said once: a Redis that answers every script with an error (a demoted primary's READONLY, a full
        // memory's OOM) stays connected, and would otherwise put a warning in the log for every request.
        if (!this.#redisFailing) {
          this.#redisFailing = true;
          this.#options.logger.warn(`key limits ${done} in this process: redis failed`, { error: error instanceof Error ? error.message : String(error) });
        }
        // The script may have run without its reply reaching us: what it took is given back once Redis answers.
        if (done === 'counted') this.#replay.queue(lostHoldOf(request), { cost: 0, tokens: 0 }, request.nowMs);
      }
    } else if (this.#shared) {
      redis?.fellBack('key_limits');
    }
    return { result: await this.#withSeed(this.memory, request, true, operation), heldBy: 'process' };
  }

  /**
   * Admits or checks, seeding the period's spending from the ledger first when the store asks for it. In
   * process, a database that cannot be read seeds what this instance knows (failing open); Redis is never
   * seeded with less than the database's count: the caller falls back to the process instead.
   */
  #withSeed<R extends CheckResult>(store: LimitStore, request: AdmissionRequest, local: boolean, operation: StoreOperation<R>): Promise<R> {
    return runSeeded(store, request, operation, async (keyHash, period) => {
      try {
        return await this.#options.ledger.periodSpend(keyHash, period);
      } catch (error) {
        if (!local) throw error;
        this.#options.logger.warn('credit limit counted from this instance alone: the database is unreachable', { key_hash: keyHash, error });
        return 0;
      }
    });
  }

  #redisCounts(): void {
    this.#redisFailing = false;
    this.#options.logger.info('key limits are counted in redis again');
  }

  async #redisReturned(): Promise<void> {
    // Counts made in process during the outage are not needed any more; the next outage starts from the database.
    this.memory.reset();
    await this.#replay.flush();
  }
}
