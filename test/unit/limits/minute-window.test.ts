import { describe, expect, it } from 'vitest';
import { retryAfterMs, secondOf, windowTotal } from '#src/limits/minute-window.ts';

describe('the 60-second window', () => {
  it('counts the buckets of the last 60 seconds and forgets the older ones', () => {
    const buckets = new Map([
      [1_000, 2],
      [1_040, 3],
      [1_059, 1],
    ]);
    expect(windowTotal(buckets, 1_059)).toBe(6);
    // At second 1060 the bucket of second 1000 has left the window.
    expect(windowTotal(buckets, 1_060)).toBe(4);
    expect(buckets.has(1_000)).toBe(false);
  });

  it.each([
    // [buckets, now ms, limit, wait ms]: when enough of the oldest counts leave for the total to fall below the limit
    [[[1_000, 2], [1_040, 3]], 1_050_500, 5, 9_500],
    [[[1_000, 2], [1_040, 3]], 1_050_500, 4, 9_500],
    [[[1_000, 2], [1_040, 3]], 1_050_500, 3, 49_500],
    [[[1_000, 60]], 1_059_999, 60, 1],
  ] as const)('%j at %i with limit %i waits %i ms', (entries, nowMs, limit, wait) => {
    expect(retryAfterMs(new Map(entries as unknown as [number, number][]), nowMs, limit)).toBe(wait);
  });

  it('names the second of a timestamp', () => {
    expect(secondOf(1_763_700_000_999)).toBe(1_763_700_000);
  });
});
