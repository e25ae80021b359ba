/**
 * Key limits counted in Redis, shared by every gateway instance: each admission, check and settlement is one
 * Lua script, one round trip, atomic (see redis-admission-scripts.ts and redis-limit-scripts.ts). Failures are
 * thrown: the key limiter then counts in process.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { LimitPeriod } from '#src/limits/limit-period.ts';
import type { AdmissionRefusal, AdmissionRequest, AdmissionResult, CheckResult, Hold, LimitStore, StoreUsage, UsageQuery } from '#src/limits/limit-store.ts';
import { ADMIT_SCRIPT, CHECK_SCRIPT } from '#src/limits/redis-admission-scripts.ts';
import { CARRY_SCRIPT, limitKeys, SEED_SCRIPT, SETTLE_SCRIPT, SETTLED_MEMORY_MS } from '#src/limits/redis-limit-scripts.ts';
import { secondOf, windowTotal } from '#src/limits/minute-window.ts';

const DAY_MS = 86_400_000;
// A lifetime limit's spending stays in Redis while the key is used, and is seeded again after a week idle.
const UNBOUNDED_PERIOD_TTL_MS = 7 * DAY_MS;

// The number of keys is the command's own (defineCommand); the keys come first, then the arguments.
type ScriptRunner = (...keysAndArgs: (string | number)[]) => Promise<unknown>;

interface LimitCommands {
  switchboardAdmit: ScriptRunner;
  switchboardCheck: ScriptRunner;
  switchboardSettle: ScriptRunner;
  switchboardSeed: ScriptRunner;
  switchboardCarry: ScriptRunner;
}

/** What one instance counted of a key in process while Redis was away, to carry into Redis. */
export interface CarriedCounts {
  keyHash: string;
  /** The period the holds' reservations belong to ('none' without a credit limit). */
  periodId: string;
  nowMs: number;
  /** [second, amount] buckets still in the window. */
  requests: readonly (readonly [number, number])[];
  tokens: readonly (readonly [number, number])[];
  /** Holds still open, with when they stop counting. */
  holds: readonly { hold: Hold; expiresAtMs: number }[];
}

/** How long a period's spending is kept: to its end and a day more, or a week for a lifetime limit. */
function spentTtlMs(period: LimitPeriod, nowMs: number): number {
  return period.end ? period.end.getTime() - nowMs + DAY_MS : UNBOUNDED_PERIOD_TTL_MS;
}

function buckets(fields: Record<string, string>): Map<number, number> {
  return new Map(Object.entries(fields).map(([second, amount]) => [Number(second), Number(amount)]));
}

/** A refusal as the admission and check scripts reply it. */
function refusalOf(reply: string[], script: string): AdmissionRefusal {
  switch (reply[0]) {
    case 'seed':
      return { ok: false, limit: 'seed' };
    case 'credit':
      return { ok: false, limit: 'credit', spent: Number(reply[1]), reserved: Number(reply[2]) };
    case 'streams':
      return { ok: false, limit: 'streams', open: Number(reply[1]) };
    case 'requests':
      return { ok: false, limit: 'requests', retryAfterMs: Number(reply[1]) };
    case 'tokens':
      return { ok: false, limit: 'tokens', retryAfterMs: Number(reply[1]), used: Number(reply[2]) };
    default:
      throw new Error(`unexpected reply from the ${script} script: ${JSON.stringify(reply)}`);
  }
}

/** The Redis store, on a connection it does not own. */
export class RedisLimitStore implements LimitStore {
  readonly #client: Redis & LimitCommands;

  constructor(client: Redis) {
    client.defineCommand('switchboardAdmit', { numberOfKeys: 7, lua: ADMIT_SCRIPT });
    client.defineCommand('switchboardCheck', { numberOfKeys: 7, lua: CHECK_SCRIPT, readOnly: true });
    client.defineCommand('switchboardSettle', { numberOfKeys: 8, lua: SETTLE_SCRIPT });
    client.defineCommand('switchboardSeed', { numberOfKeys: 1, lua: SEED_SCRIPT });
    client.defineCommand('switchboardCarry', { numberOfKeys: 7, lua: CARRY_SCRIPT });
    this.#client = client as Redis & LimitCommands;
  }

  async admit(request: AdmissionRequest): Promise<AdmissionResult> {
    const { credit } = request;
    const keys = limitKeys(request.keyHash, credit?.period.id ?? 'none').slice(0, 7);
    const reply = (await this.#client.switchboardAdmit(
      ...keys,
      request.nowMs,
      request.id,
      credit ? credit.limit : '',
      credit ? credit.cost : 0,
      request.expiresAtMs,
      request.streams ? request.streams.max : '',
      request.requestsPerMinute ?? '',
      request.tokens ? request.tokens.limit : '',
      request.tokens ? request.tokens.amount : 0,
      credit && credit.period.end === null ? UNBOUNDED_PERIOD_TTL_MS : 0,
    )) as string[];
    if (reply[0] !== 'ok') return refusalOf(reply, 'admission');
    const seed = reply[1] ? reply[1] : null;
    if (request.requestsPerMinute === null && request.tokens === null) return { ok: true, seed };
    const window = { requests: reply[3] ? Number(reply[3]) : null, tokens: reply[4] ? Number(reply[4]) : null, buckets: { requests: reply[5] ?? '', tokens: reply[6] ?? '' } };
    return { ok: true, seed, window };
  }

  async check(request: AdmissionRequest): Promise<CheckResult> {
    const { credit } = request;
    const keys = limitKeys(request.keyHash, credit?.period.id ?? 'none').slice(0, 7);
    const reply = (await this.#client.switchboardCheck(
      ...keys,
      request.nowMs,
      credit ? credit.limit : '',
      request.streams ? request.streams.max : '',
      request.requestsPerMinute ?? '',
      request.tokens ? request.tokens.limit : '',
    )) as string[];
    return reply[0] === 'ok' ? { ok: true } : refusalOf(reply, 'check');
  }

  async seed(keyHash: string, period: LimitPeriod, spent: number): Promise<string> {
    const [spentKey] = limitKeys(keyHash, period.id);
    const nowMs = Date.now();
    return String(await this.#client.switchboardSeed(spentKey as string, spent, randomUUID(), Math.max(1, Math.round(spentTtlMs(period, nowMs))), nowMs));
  }

  async settle(hold: Hold, actual: { cost: number; tokens: number }, nowMs: number): Promise<void> {
    const keys = limitKeys(hold.keyHash, hold.credit?.period.id ?? 'none');
    await this.#client.switchboardSettle(
      ...keys,
      hold.id,
      actual.cost,
      hold.credit && hold.seed ? hold.seed : '',
      hold.tokens ? hold.tokens.second : '',
      hold.tokens ? actual.tokens - hold.tokens.amount : 0,
      nowMs,
      SETTLED_MEMORY_MS,
    );
  }

  /** Adds what this instance counted in process to Redis's counts (one atomic script); returns the period's seed, or null when its spending is not counted in Redis. */
  async carry(counts: CarriedCounts): Promise<string | null> {
    const args: (string | number)[] = [counts.nowMs];
    for (const buckets of [counts.requests, counts.tokens]) {
      args.push(buckets.length);
      for (const [second, amount] of buckets) args.push(second, Math.round(amount));
    }
    for (const { hold, expiresAtMs } of counts.holds) args.push(hold.id, hold.credit ? hold.credit.cost : '', expiresAtMs, hold.stream ? '1' : '0');
    const seed = (await this.#client.switchboardCarry(...limitKeys(counts.keyHash, counts.periodId).slice(0, 7), ...args)) as string;
    return seed ? seed : null;
  }

  async usage(query: UsageQuery): Promise<StoreUsage> {
    const [spentKey, , , , streamsKey, requestsKey, tokensKey] = limitKeys(query.keyHash, query.period?.id ?? 'none') as [string, string, string, string, string, string, string];
    const replies = await this.#client
      .multi()
      .hget(spentKey, 'spent')
      .zcount(streamsKey, query.nowMs, '+inf')
      .hgetall(requestsKey)
      .hgetall(tokensKey)
      .exec();
    if (!replies) throw new Error('the usage transaction was discarded');
    for (const [error] of replies) if (error) throw error;
    const [spent, streams, requests, tokens] = replies.map(([, value]) => value) as [string | null, number, Record<string, string>, Record<string, string>];
    const second = secondOf(query.nowMs);
    return {
      spent: query.period && spent !== null ? Number(spent) : null,
      requests: query.requests ? windowTotal(buckets(requests), second) : null,
      tokens: query.tokens ? windowTotal(buckets(tokens), second) : null,
      streams: query.streams ? Number(streams) : null,
    };
  }
}
