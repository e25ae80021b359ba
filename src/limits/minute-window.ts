/**
 * The 60-second window of the per-minute limits, counted in one-second buckets: a count made in second `s`
 * belongs to the window of every second up to `s + 59`. The same rule runs in process (memory-limit-store.ts)
 * and, in Lua, in Redis (redis-admission-scripts.ts). Pure functions.
 */

/** Seconds in the window. */
export const WINDOW_SECONDS = 60;

/** The second a millisecond timestamp falls in. */
export function secondOf(epochMs: number): number {
  return Math.floor(epochMs / 1000);
}

/** The earliest second still in the window of `nowSecond`. */
export function windowStart(nowSecond: number): number {
  return nowSecond - (WINDOW_SECONDS - 1);
}

/** The count of the window at `nowSecond`; buckets that have left it are deleted on the way. */
export function windowTotal(buckets: Map<number, number>, nowSecond: number): number {
  const start = windowStart(nowSecond);
  let total = 0;
  for (const [second, amount] of buckets) {
    if (second < start) buckets.delete(second);
    else total += amount;
  }
  return total;
}

/**
 * Milliseconds from `nowMs` until the window's count drops below `limit`: the oldest buckets leave one by one,
 * each at its second plus 60. At least one millisecond.
 */
export function retryAfterMs(buckets: ReadonlyMap<number, number>, nowMs: number, limit: number): number {
  const start = windowStart(secondOf(nowMs));
  const inWindow = [...buckets].filter(([second]) => second >= start).sort((left, right) => left[0] - right[0]);
  let remaining = inWindow.reduce((sum, [, amount]) => sum + amount, 0);
  for (const [second, amount] of inWindow) {
    remaining -= amount;
    if (remaining < limit) return Math.max(1, (second + WINDOW_SECONDS) * 1000 - nowMs);
  }
  return 1_000;
}
