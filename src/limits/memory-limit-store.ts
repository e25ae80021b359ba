/**
 * Key limits counted in this process: exact for one instance (the check and the taking happen in one
 * synchronous step), and what every instance falls back to while Redis is unreachable. A check alone runs the
 * same rules and takes nothing.
 */
import type { LimitPeriod } from '#src/limits/limit-period.ts';
import type { AdmissionRefusal, AdmissionRequest, AdmissionResult, CheckResult, Hold, LimitStore, StoreUsage, UsageQuery } from '#src/limits/limit-store.ts';
import { retryAfterMs, secondOf, windowTotal } from '#src/limits/minute-window.ts';
import { parseBuckets, type SeenWindow } from '#src/limits/seen-windows.ts';

interface KeyState {
  /** Spending per period id, seeded from the database on first use. */
  spent: Map<string, number>;
  /** Open reservations: cost and when they stop counting. */
  holds: Map<string, { cost: number; expiresAt: number }>;
  /** Open streams and when they stop counting. */
  streams: Map<string, number>;
  requests: Map<number, number>;
  tokens: Map<number, number>;
  /**
   * The windows Redis last reported when it went away (seen-windows.ts): counted with this process's own,
   * never carried back into Redis (which has them, or lost everyone's alike).
   */
  seenRequests?: Map<number, number>;
  seenTokens?: Map<number, number>;
}

/** A window's buckets with those Redis last reported, when there are any (a new map: a refusal's wait reads both). */
function withSeen(own: Map<number, number>, seen: Map<number, number> | undefined): Map<number, number> {
  if (!seen || seen.size === 0) return own;
  const merged = new Map(seen);
  for (const [second, amount] of own) merged.set(second, (merged.get(second) ?? 0) + amount);
  return merged;
}

/** The count of a window at `second`, with what Redis last reported (buckets that left it deleted on the way). */
function total(own: Map<number, number>, seen: Map<number, number> | undefined, second: number): number {
  return windowTotal(own, second) + (seen ? windowTotal(seen, second) : 0);
}

const MEMORY_SEED = 'process';

/** The in-process store. */
export class MemoryLimitStore implements LimitStore {
  readonly #keys = new Map<string, KeyState>();

  async admit(request: AdmissionRequest): Promise<AdmissionResult> {
    return this.admitNow(request);
  }

  async check(request: AdmissionRequest): Promise<CheckResult> {
    return this.#refusal(this.#state(request.keyHash), request) ?? { ok: true };
  }

  /** The admission, synchronously: nothing can run between the checks and the taking. */
  admitNow(request: AdmissionRequest): AdmissionResult {
    const state = this.#state(request.keyHash);
    const refusal = this.#refusal(state, request);
    if (refusal) return refusal;
    const second = secondOf(request.nowMs);
    if (request.credit) state.holds.set(request.id, { cost: request.credit.cost, expiresAt: request.expiresAtMs });
    if (request.streams) state.streams.set(request.id, request.expiresAtMs);
    if (request.requestsPerMinute !== null) state.requests.set(second, (state.requests.get(second) ?? 0) + 1);
    if (request.tokens) state.tokens.set(second, (state.tokens.get(second) ?? 0) + request.tokens.amount);
    const seed = request.credit ? MEMORY_SEED : null;
    if (request.requestsPerMinute === null && !request.tokens) return { ok: true, seed };
    const window = {
      requests: request.requestsPerMinute !== null ? total(state.requests, state.seenRequests, second) : null,
      tokens: request.tokens ? total(state.tokens, state.seenTokens, second) : null,
    };
    return { ok: true, seed, window };
  }

  /** The limit the request would pass, or the refusal (admit and check alike); drops what expired first. */
  #refusal(state: KeyState, request: AdmissionRequest): AdmissionRefusal | null {
    const now = request.nowMs;
    const second = secondOf(now);
    for (const [id, hold] of state.holds) if (hold.expiresAt <= now) state.holds.delete(id);
    for (const [id, expiresAt] of state.streams) if (expiresAt <= now) state.streams.delete(id);

    if (request.credit) {
      const spent = state.spent.get(request.credit.period.id);
      if (spent === undefined) return { ok: false, limit: 'seed' };
      let reserved = 0;
      for (const hold of state.holds.values()) reserved += hold.cost;
      if (spent + reserved >= request.credit.limit) return { ok: false, limit: 'credit', spent, reserved };
    }
    if (request.streams && state.streams.size >= request.streams.max) return { ok: false, limit: 'streams', open: state.streams.size };
    if (request.requestsPerMinute !== null && total(state.requests, state.seenRequests, second) >= request.requestsPerMinute) {
      return { ok: false, limit: 'requests', retryAfterMs: retryAfterMs(withSeen(state.requests, state.seenRequests), now, request.requestsPerMinute) };
    }
    if (request.tokens) {
      const used = total(state.tokens, state.seenTokens, second);
      if (used >= request.tokens.limit) return { ok: false, limit: 'tokens', used, retryAfterMs: retryAfterMs(withSeen(state.tokens, state.seenTokens), now, request.tokens.limit) };
    }
    return null;
  }

  async seed(keyHash: string, period: LimitPeriod, spent: number): Promise<string> {
    const state = this.#state(keyHash);
    if (!state.spent.has(period.id)) {
      // Only the current period is ever asked for again.
      state.spent.clear();
      state.spent.set(period.id, spent);
    }
    return MEMORY_SEED;
  }

  /**
   * Releases the hold. `counted`: where its tokens were counted, this process's window (`own`) or the one
   * Redis reported (`seen`: a hold taken in Redis before it went away).
   */
  async settle(hold: Hold, actual: { cost: number; tokens: number }, nowMs: number, counted: 'own' | 'seen' = 'own'): Promise<void> {
    const state = this.#keys.get(hold.keyHash);
    if (!state) return;
    state.holds.delete(hold.id);
    state.streams.delete(hold.id);
    if (hold.credit) {
      const spent = state.spent.get(hold.credit.period.id);
      if (spent !== undefined) state.spent.set(hold.credit.period.id, spent + actual.cost);
    }
    const tokens = counted === 'own' ? state.tokens : state.seenTokens;
    if (hold.tokens && tokens?.has(hold.tokens.second) && hold.tokens.second > secondOf(nowMs) - 60) {
      const amount = tokens.get(hold.tokens.second) ?? 0;
      tokens.set(hold.tokens.second, Math.max(0, amount + actual.tokens - hold.tokens.amount));
    }
  }

  async usage(query: UsageQuery): Promise<StoreUsage> {
    const state = this.#keys.get(query.keyHash);
    const second = secondOf(query.nowMs);
    const streams = state ? [...state.streams.values()].filter((expiresAt) => expiresAt > query.nowMs).length : 0;
    return {
      spent: query.period ? (state?.spent.get(query.period.id) ?? null) : null,
      requests: query.requests ? (state ? total(state.requests, state.seenRequests, second) : 0) : null,
      tokens: query.tokens ? (state ? total(state.tokens, state.seenTokens, second) : 0) : null,
      streams: query.streams ? streams : null,
    };
  }

  /** Forgets every count (Redis is back: the next outage starts from the database's spending again). */
  reset(): void {
    this.#keys.clear();
  }

  /** The keys this process has counts of. */
  keyHashes(): string[] {
    return [...this.#keys.keys()];
  }

  /** The request and token buckets of a key still in the window at `nowMs`, as [second, amount] pairs (carried into Redis when it returns). */
  windowCounts(keyHash: string, nowMs: number): { requests: [number, number][]; tokens: [number, number][] } {
    const state = this.#keys.get(keyHash);
    if (!state) return { requests: [], tokens: [] };
    const second = secondOf(nowMs);
    windowTotal(state.requests, second);
    windowTotal(state.tokens, second);
    return { requests: [...state.requests], tokens: [...state.tokens] };
  }

  /**
   * Starts a key's windows from what Redis last reported of them (it has just gone away), so the limit holds
   * across the switch instead of starting over at zero. Only the buckets still in the window at `nowMs` count.
   */
  seedWindows(keyHash: string, seen: SeenWindow, nowMs: number): void {
    const state = this.#state(keyHash);
    state.seenRequests = parseBuckets(seen.requests, nowMs);
    state.seenTokens = parseBuckets(seen.tokens, nowMs);
  }

  /** Forgets one key's counts (carried into Redis). */
  forget(keyHash: string): void {
    this.#keys.delete(keyHash);
  }

  /**
   * Counts a hold taken in Redis that is still open here (Redis went away): its reservation and stream slot
   * keep counting in process until it settles, so an outage does not free what this instance holds.
   */
  mirror(hold: Hold, expiresAtMs: number): void {
    const state = this.#state(hold.keyHash);
    if (hold.credit) state.holds.set(hold.id, { cost: hold.credit.cost, expiresAt: expiresAtMs });
    if (hold.stream) state.streams.set(hold.id, expiresAtMs);
  }

  #state(keyHash: string): KeyState {
    let state = this.#keys.get(keyHash);
    if (!state) {
      state = { spent: new Map(), holds: new Map(), streams: new Map(), requests: new Map(), tokens: new Map() };
      this.#keys.set(keyHash, state);
    }
    return state;
  }
}
