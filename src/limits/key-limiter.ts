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
import { Counter, type Registry } from 'prom-client';
import type { Logger } from '#src/logger.ts';
import type { MessageRequest } from '#src/api-types.ts';
import type { Pricing } from '#src/catalog/catalog-types.ts';
import type { RedisConnection } from '#src/redis/redis-connection.ts';
import type { KeyLimits } from '#src/limits/key-limits.ts';
import { limitPeriod, utcDay } from '#src/limits/limit-period.ts';
import type { AdmissionRequest, AdmissionResult, Hold, LimitStore } from '#src/limits/limit-store.ts';
import { MemoryLimitStore } from '#src/limits/memory-limit-store.ts';
import { RedisLimitStore } from '#src/limits/redis-limit-store.ts';
import { refusalError } from '#src/limits/limit-answers.ts';
import { secondOf } from '#src/limits/minute-window.ts';
import type { SpendLedger } from '#src/limits/spend-ledger.ts';
import { settledAmounts, worstCase, type UsageAmounts } from '#src/limits/usage-amounts.ts';
import type { AnswerUsage } from '#src/observability/generation-outcome.ts';

/** What admission reads of a planned request. */
export interface AdmissionPlan {
  request: Pick<MessageRequest, 'system' | 'messages' | 'tools' | 'max_tokens' | 'stream'>;
  attempts: readonly { pricing: Readonly<Pricing> }[];
}

/** What admission reads of the request's context. */
export interface AdmissionContext {
  caller: { keyHash: string; limits?: KeyLimits | null | undefined };
  generationId: string;
}

/** What settlement reads of a finished request (a generation outcome). */
export interface SettledRequest {
  id: string;
  keyHash: string;
  /** Epoch ms the request arrived: its day in the spending ledger. */
  startedAt: number;
  usage: AnswerUsage | null;
}

/** Options of the limiter. */
export interface KeyLimiterOptions {
  ledger: SpendLedger;
  redis: RedisConnection | undefined;
  logger: Logger;
  registry?: Registry;
  /** How long a reservation that is never settled (its instance died) keeps counting. */
  holdMs: number;
  now?: () => number;
}

type HeldBy = 'redis' | 'process';

// Settlements waiting for Redis to return; beyond this many the oldest are dropped (their cost is in the
// database either way, only the shared count misses it until the period's spending is seeded again).
const REPLAY_LIMIT = 10_000;

/** The limiter of one gateway instance. */
export class KeyLimiter {
  readonly memory = new MemoryLimitStore();
  readonly #shared: RedisLimitStore | undefined;
  readonly #holds = new Map<string, Hold & { heldBy: HeldBy }>();
  /** The last seed Redis reported per key and period, for replaying settlements made in process. */
  readonly #seeds = new Map<string, string>();
  #replay: { hold: Hold; actual: UsageAmounts; nowMs: number }[] = [];
  /** Settlements on their way to Redis: shutdown waits for them, or other instances would see the holds for minutes. */
  readonly #settling = new Set<Promise<void>>();
  #replayTimer: NodeJS.Timeout | undefined;
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
    this.#stopReady = options.redis?.onReady(() => void this.#redisReturned());
  }

  /** The store counts are read from now: Redis when it is there, this process otherwise. */
  currentStore(): LimitStore {
    return this.#shared && this.#options.redis?.available() ? this.#shared : this.memory;
  }

  /** Admits a planned request or throws the 402 or 429 that names the limit it hit. */
  async admit(plan: AdmissionPlan, context: AdmissionContext): Promise<void> {
    const limits = context.caller.limits;
    if (!limits) return;
    const streams = plan.request.stream === true && limits.maxConcurrentStreams !== null ? { max: limits.maxConcurrentStreams } : null;
    if (limits.creditLimit === null && limits.requestsPerMinute === null && limits.tokensPerMinute === null && streams === null) return;
    const nowMs = this.#now();
    const needsWorstCase = limits.creditLimit !== null || limits.tokensPerMinute !== null;
    const worst = needsWorstCase ? worstCase(plan.request, plan.attempts.map((attempt) => attempt.pricing)) : { cost: 0, tokens: 0 };
    const period = limits.creditLimit !== null ? limitPeriod(limits.limitReset, nowMs) : null;
    const request: AdmissionRequest = {
      keyHash: context.caller.keyHash,
      id: context.generationId,
      nowMs,
      credit: period && limits.creditLimit !== null ? { limit: limits.creditLimit, period, cost: worst.cost } : null,
      requestsPerMinute: limits.requestsPerMinute,
      tokens: limits.tokensPerMinute !== null ? { limit: limits.tokensPerMinute, amount: worst.tokens } : null,
      streams,
      expiresAtMs: nowMs + this.#options.holdMs,
    };
    const { result, heldBy } = await this.#reserve(request);
    if (!result.ok) {
      if (result.limit === 'seed') throw new Error('the period spending was not seeded');
      this.#refusals?.inc({ limit: result.limit });
      throw refusalError(result, limits, period);
    }
    if (heldBy === 'redis' && request.credit && result.seed) this.#seeds.set(`${request.keyHash}|${request.credit.period.id}`, result.seed);
    this.#holds.set(request.id, {
      keyHash: request.keyHash,
      id: request.id,
      credit: request.credit ? { period: request.credit.period, cost: request.credit.cost } : null,
      tokens: request.tokens ? { second: secondOf(nowMs), amount: request.tokens.amount } : null,
      stream: streams !== null,
      seed: result.seed,
      heldBy,
    });
  }

  /** Settles a finished request: its cost joins the ledger, its hold (if any) is released to its real usage. Returns at once. */
  settle(finished: SettledRequest): void {
    const actual = settledAmounts(finished.usage);
    this.#options.ledger.add(finished.keyHash, utcDay(finished.startedAt), actual.cost);
    const hold = this.#holds.get(finished.id);
    if (!hold) return;
    this.#holds.delete(finished.id);
    const nowMs = this.#now();
    if (hold.heldBy === 'process') {
      void this.memory.settle(hold, actual, nowMs);
      // The shared count misses this cost: replay it into the spending Redis had when we last saw it.
      const seed = hold.credit ? this.#seeds.get(`${hold.keyHash}|${hold.credit.period.id}`) : undefined;
      if (seed && this.#shared) this.#queueReplay({ ...hold, id: `${hold.id}:replay`, tokens: null, stream: false, seed }, actual, nowMs);
      return;
    }
    if (!this.#shared) return;
    const settling = this.#shared.settle(hold, actual, nowMs).catch((error: unknown) => {
      this.#options.redis?.fellBack('key_limits', error);
      this.#queueReplay(hold, actual, nowMs);
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
    clearTimeout(this.#replayTimer);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.#settling]), new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
    if (this.#replay.length > 0) this.#options.logger.warn('key limit settlements not replayed into redis at shutdown', { settlements: this.#replay.length });
  }

  async #reserve(request: AdmissionRequest): Promise<{ result: AdmissionResult; heldBy: HeldBy }> {
    const redis = this.#options.redis;
    if (this.#shared && redis?.available()) {
      try {
        return { result: await this.#admitWithSeed(this.#shared, request, false), heldBy: 'redis' };
      } catch (error) {
        redis.fellBack('key_limits', error);
        this.#options.logger.warn('key limits counted in this process: redis failed', { error: error instanceof Error ? error.message : String(error) });
      }
    } else if (this.#shared) {
      redis?.fellBack('key_limits');
    }
    return { result: await this.#admitWithSeed(this.memory, request, true), heldBy: 'process' };
  }

  /**
   * Admits, seeding the period's spending from the ledger first when the store asks for it. In process, a
   * database that cannot be read seeds what this instance knows (failing open); Redis is never seeded with
   * less than the database's count: the caller falls back to the process instead.
   */
  async #admitWithSeed(store: LimitStore, request: AdmissionRequest, local: boolean): Promise<AdmissionResult> {
    const first = await store.admit(request);
    if (first.ok || first.limit !== 'seed' || !request.credit) return first;
    const { period } = request.credit;
    let spent: number;
    try {
      spent = await this.#options.ledger.periodSpend(request.keyHash, period);
    } catch (error) {
      if (!local) throw error;
      this.#options.logger.warn('credit limit counted from this instance alone: the database is unreachable', { key_hash: request.keyHash, error });
      spent = 0;
    }
    await store.seed(request.keyHash, period, spent);
    return store.admit(request);
  }

  #queueReplay(hold: Hold, actual: UsageAmounts, nowMs: number): void {
    if (this.#replay.length >= REPLAY_LIMIT) this.#replay.shift();
    this.#replay.push({ hold, actual, nowMs });
    // A single failed command (Redis still up) is retried soon, so its hold does not linger until it expires.
    if (!this.#replayTimer) {
      this.#replayTimer = setTimeout(() => {
        this.#replayTimer = undefined;
        if (this.#options.redis?.available()) void this.#flushReplay();
      }, 1_000);
      this.#replayTimer.unref();
    }
  }

  async #redisReturned(): Promise<void> {
    // Counts made in process during the outage are not needed any more; the next outage starts from the database.
    this.memory.reset();
    await this.#flushReplay();
  }

  async #flushReplay(): Promise<void> {
    const replay = this.#replay;
    this.#replay = [];
    for (const [index, entry] of replay.entries()) {
      try {
        await this.#shared?.settle(entry.hold, entry.actual, entry.nowMs);
      } catch {
        for (const left of replay.slice(index)) this.#queueReplay(left.hold, left.actual, left.nowMs);
        return;
      }
    }
    if (replay.length > 0) this.#options.logger.info('settlements that could not reach redis were replayed', { settlements: replay.length });
  }
}
