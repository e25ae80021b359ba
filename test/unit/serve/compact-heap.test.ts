/**
 * When the serving process compacts its heap: only after a whole minute of idle checks, and only when the heap
 * has grown enough since the last compaction.
 */
import { describe, expect, it } from 'vitest';
import { idleCheck, type IdleCompactionOptions } from '#src/serve/compact-heap.ts';

const SETTINGS: IdleCompactionOptions = { checkEveryMs: 5000, idleBelow: 0.01, idleForMs: 60_000, growthBytes: 16 * 2 ** 20 };
const MB = 2 ** 20;

describe('idleCheck', () => {
  it.each([
    { case: 'a busy interval ends the streak', streakMs: 55_000, busy: 0.2, heap: 200 * MB, expected: { streakMs: 0, compact: false } },
    { case: 'one idle check is not enough', streakMs: 0, busy: 0, heap: 200 * MB, expected: { streakMs: 5000, compact: false } },
    { case: 'idle for 55 s: not yet', streakMs: 50_000, busy: 0.005, heap: 200 * MB, expected: { streakMs: 55_000, compact: false } },
    { case: 'idle for a minute with the heap grown: compact', streakMs: 55_000, busy: 0.005, heap: 200 * MB, expected: { streakMs: 60_000, compact: true } },
    { case: 'idle for a minute with the heap grown by less than the threshold: keep it', streakMs: 55_000, busy: 0, heap: 115 * MB, expected: { streakMs: 60_000, compact: false } },
    { case: 'idle long after a compaction, the heap grown again: compact', streakMs: 300_000, busy: 0, heap: 117 * MB, expected: { streakMs: 305_000, compact: true } },
  ])('$case', ({ streakMs, busy, heap, expected }) => {
    expect(idleCheck(streakMs, { busy, heapBytes: heap }, 100 * MB, SETTINGS)).toEqual(expected);
  });
});
