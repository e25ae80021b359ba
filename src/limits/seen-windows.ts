/**
 * The per-minute windows Redis last reported for each key, as its admissions returned them (no round trip of
 * their own). When Redis goes away the process's windows start from these (memory-limit-store.ts), so a key
 * keeps its limit across the switch instead of getting a fresh minute in process: without them, a key at its
 * limit could make up to twice its requests in the minute Redis went away. Kept as received (strings), parsed
 * only then.
 */
import { secondOf, windowStart } from '#src/limits/minute-window.ts';

/** A key's windows as Redis last reported them: `second:amount` pairs joined by commas, and when. */
export interface SeenWindow {
  requests: string;
  tokens: string;
  atMs: number;
}

// Beyond this many keys the ones seen longest ago are dropped (a key seen over a minute ago has nothing to give).
const MAX_KEYS = 10_000;

/** The last windows of the keys admitted in Redis within the minute. */
export class SeenWindows {
  readonly #windows = new Map<string, SeenWindow>();

  /** Remembers what an admission in Redis reported (the latest replaces what was kept). */
  saw(keyHash: string, buckets: { requests: string; tokens: string }, atMs: number): void {
    // Re-inserted so the map's order is the order keys were last seen in.
    this.#windows.delete(keyHash);
    this.#windows.set(keyHash, { requests: buckets.requests, tokens: buckets.tokens, atMs });
    if (this.#windows.size > MAX_KEYS) this.#prune();
  }

  /** Hands over (and forgets) every key's windows still within the minute at `nowMs`. */
  takeRecent(nowMs: number): [string, SeenWindow][] {
    const recent = [...this.#windows].filter(([, seen]) => seen.atMs > nowMs - 60_000);
    this.#windows.clear();
    return recent;
  }

  /** How many keys' windows are kept. */
  get size(): number {
    return this.#windows.size;
  }

  // Insertion order is the order keys were last seen in: the oldest go first.
  #prune(): void {
    for (const keyHash of this.#windows.keys()) {
      if (this.#windows.size <= MAX_KEYS) return;
      this.#windows.delete(keyHash);
    }
  }
}

/** The buckets of an encoded window still in the window of `nowMs` (all of them without it). */
export function parseBuckets(encoded: string, nowMs?: number): Map<number, number> {
  const buckets = new Map<number, number>();
  const start = nowMs === undefined ? Number.NEGATIVE_INFINITY : windowStart(secondOf(nowMs));
  for (const pair of encoded.split(',')) {
    const [second, amount] = pair.split(':').map(Number);
    if (second === undefined || amount === undefined || !Number.isFinite(second) || !Number.isFinite(amount) || second < start) continue;
    buckets.set(second, amount);
  }
  return buckets;
}
