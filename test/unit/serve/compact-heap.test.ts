/**
 * When the serving process compacts its heap: once start-up has settled (the first idle check after its first
 * requests grew the heap a little), then only after a whole minute of idle checks and when the heap has grown
 * enough since the last compaction.
 */
import { describe, expect, it } from 'vitest';
import { idleCheck, type IdleCompactionOptions } from '#src/serve/compact-heap.ts';

const MB = 2 ** 20;
const SETTINGS: IdleCompactionOptions = { checkEveryMs: 5000, idleBelow: 0.01, idleForMs: 60_000, growthBytes: 16 * MB, settleGrowthBytes: 4 * MB };

describe('idleCheck', () => {
  it.each([
    { case: 'start-up: a busy interval waits', settled: false, streakMs: 0, busy: 0.05, heap: 110 * MB, expected: { state: { streakMs: 0, settled: false }, compact: false } },
    { case: 'start-up: the first idle check after the first requests compacts', settled: false, streakMs: 0, busy: 0.005, heap: 106 * MB, expected: { state: { streakMs: 5000, settled: true }, compact: true } },
    { case: 'start-up: idle without growth waits for requests', settled: false, streakMs: 20_000, busy: 0, heap: 102 * MB, expected: { state: { streakMs: 25_000, settled: false }, compact: false } },
    { case: 'a busy interval ends the streak', settled: true, streakMs: 55_000, busy: 0.2, heap: 200 * MB, expected: { state: { streakMs: 0, settled: true }, compact: false } },
    { case: 'one idle check is not enough', settled: true, streakMs: 0, busy: 0, heap: 200 * MB, expected: { state: { streakMs: 5000, settled: true }, compact: false } },
    { case: 'idle for 55 s: not yet', settled: true, streakMs: 50_000, busy: 0.005, heap: 200 * MB, expected: { state: { streakMs: 55_000, settled: true }, compact: false } },
    { case: 'idle for a minute with the heap grown: compact', settled: true, streakMs: 55_000, busy: 0.005, heap: 200 * MB, expected: { state: { streakMs: 60_000, settled: true }, compact: true } },
    { case: 'idle for a minute, grown by less than the threshold: keep it', settled: true, streakMs: 55_000, busy: 0, heap: 115 * MB, expected: { state: { streakMs: 60_000, settled: true }, compact: false } },
    { case: 'idle long after a compaction, grown again: compact', settled: true, streakMs: 300_000, busy: 0, heap: 117 * MB, expected: { state: { streakMs: 305_000, settled: true }, compact: true } },
  ])('$case', ({ settled, streakMs, busy, heap, expected }) => {
    expect(idleCheck({ streakMs, settled }, { busy, heapBytes: heap }, 100 * MB, SETTINGS)).toEqual(expected);
  });
});
