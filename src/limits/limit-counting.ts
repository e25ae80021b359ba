/**
 * Where the key limiter's counts are kept: in Redis while it answers, in this process while it does not
 * (failing open), and the holds of the requests in progress with the store that holds each. Moves counts
 * between the two when Redis goes away and comes back (redis-carry-over.ts), and replays the settlements
 * that could not reach Redis (settlement-replay.ts).
 */
import { holdOf, lostHoldOf } from '#src/limits/admission-request.ts';
import { runSeeded, type AdmissionRequest, type AdmittedWindow, type CheckResult, type LimitStore, type StoreOperation } from '#src/limits/limit-store.ts';
import { SeenWindows } from '#src/limits/seen-windows.ts';
import { MemoryLimitStore } from '#src/limits/memory-limit-store.ts';
import { carryIntoRedis, mirrorOpenHolds, type KeptHold } from '#src/limits/redis-carry-over.ts';
import { RedisLimitStore } from '#src/limits/redis-limit-store.ts';
import { SettlementReplay } from '#src/limits/settlement-replay.ts';
import type { UsageAmounts } from '#src/limits/usage-amounts.ts';
import type { KeyLimiterOptions } from '#src/limits/key-limiter-types.ts';

type HeldBy = KeptHold['heldBy'];

/** The counts of one limiter. */
export class LimitCounting {
  readonly memory = new MemoryLimitStore();
  readonly #shared: RedisLimitStore | undefined;
  readonly #holds = new Map<string, KeptHold>();
  /** The last seed Redis reported per key and period, for replaying settlements made in process. */
  readonly #seeds = new Map<string, string>();
  readonly #replay: SettlementReplay;
  /** The per-minute windows Redis last reported per key: the process's start from them when Redis goes away. */
  readonly #seen = new SeenWindows();
  /** Settlements on their way to Redis: shutdown waits for them, or other instances would see the holds for minutes. */
  readonly #settling = new Set<Promise<void>>();
  /** Whether an admission or check in Redis failed (and was logged) with no admission there since. */
  #redisFailing = false;
  /** Whether this instance's open Redis holds are counted in process too (an outage; see redis-carry-over.ts). */
  #mirrored = false;
  readonly #options: KeyLimiterOptions;
  readonly #now: () => number;
  readonly #stopReady: (() => void) | undefined;

  constructor(options: KeyLimiterOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#shared = options.redis ? new RedisLimitStore(options.redis.client) : undefined;
    this.#replay = new SettlementReplay(() => this.#shared, () => options.redis?.available() === true, options.logger);
    this.#stopReady = options.redis?.onReady(() => void this.#redisReturned());
  }

  /** The store counts are read from now: Redis when it is there, this process otherwise. */
  currentStore(): LimitStore {
    return this.#shared && this.#options.redis?.available() ? this.#shared : this.memory;
  }

  /**
   * Keeps what an admission took, to settle it later in the store that holds it, and the windows Redis
   * reported with it (`window`).
   */
  keep(request: AdmissionRequest, seed: string | null, heldBy: HeldBy, window?: AdmittedWindow): void {
    if (heldBy === 'redis' && request.credit && seed) this.#seeds.set(`${request.keyHash}|${request.credit.period.id}`, seed);
    if (heldBy === 'redis' && window?.buckets) this.#seen.saw(request.keyHash, window.buckets, request.nowMs);
    this.#holds.set(request.id, { ...holdOf(request, seed), heldBy, expiresAtMs: request.expiresAtMs });
  }

  /** Takes a hold out of those in progress (to release it), or undefined when there is none by that id. */
  take(holdId: string): KeptHold | undefined {
    const hold = this.#holds.get(holdId);
    if (hold) this.#holds.delete(holdId);
    return hold;
  }

  /** Releases a hold to its real usage, in the store that holds it. */
  release(hold: KeptHold, actual: UsageAmounts, nowMs: number): void {
    // Being carried into Redis: settled once it is there (or back in process, if Redis failed again).
    if (hold.carrying) return void hold.carrying.then(() => this.release(hold, actual, nowMs));
    if (hold.heldBy === 'process') {
      void this.memory.settle(hold, actual, nowMs);
      // The shared count misses this cost: replay it into the spending Redis had when we last saw it, or
      // (never seen here) into one seeded before the request was admitted, which cannot hold its cost yet.
      const seed = hold.credit ? (this.#seeds.get(`${hold.keyHash}|${hold.credit.period.id}`) ?? `before:${hold.expiresAtMs - this.#options.holdMs}`) : undefined;
      if (seed && this.#shared) this.#replay.queue({ ...hold, id: `${hold.id}:replay`, tokens: null, stream: false, seed }, actual, nowMs);
      return;
    }
    if (!this.#shared) return;
    if (this.#mirrored) void this.memory.settle(hold, actual, nowMs, 'seen');
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
  async run<R extends CheckResult>(request: AdmissionRequest, done: 'counted' | 'checked', operation: StoreOperation<R>): Promise<{ result: R; heldBy: HeldBy }> {
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
    if (this.#shared && !this.#mirrored) {
      this.#mirrored = true;
      mirrorOpenHolds(this.memory, this.#holds, request.nowMs);
      // The windows go on from what Redis last said of them: a fresh minute here would allow twice the limit.
      for (const [keyHash, seen] of this.#seen.takeRecent(request.nowMs)) this.memory.seedWindows(keyHash, seen, request.nowMs);
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
    // What the process counted meanwhile joins Redis's counts; the next outage starts from the database again.
    if (this.#shared && (this.#holds.size > 0 || this.memory.keyHashes().length > 0)) {
      const carried = await carryIntoRedis(this.memory, this.#shared, this.#holds, this.#seeds, this.#now(), (id) => this.#replay.has(id));
      if (carried) this.#options.logger.info('key limit counts made in process were carried into redis');
      else this.#options.logger.warn('key limit counts made in process could not all be carried into redis; they stay in process');
    }
    this.#mirrored = false;
    await this.#replay.flush();
  }
}
