/**
 * Laying out a generation's attempts in time from the record's start, durations, TTFB and total, and the
 * moderation screening's window, which the generation's holds and the model's attempts follow.
 */
import { describe, expect, it } from 'vitest';
import { generationTimeline } from '#src/observability/broadcast/generation-timeline.ts';

const base = { createdAt: new Date(1_000_000), status: 'success' as const };
const attempts = (...durations: number[]) => durations.map((duration_ms) => ({ duration_ms }));

describe('generationTimeline', () => {
  it.each([
    ['JSON, one attempt', { totalMs: 100, timeToFirstByteMs: 100, stream: false, attempts: attempts(90) }, [[1_000_010, 1_000_100]]],
    ['JSON, a failover', { totalMs: 300, timeToFirstByteMs: 300, stream: false, attempts: attempts(100, 150) }, [[1_000_050, 1_000_150], [1_000_150, 1_000_300]]],
    ['a stream: the answering attempt lasts to the end', { totalMs: 1000, timeToFirstByteMs: 200, stream: true, attempts: attempts(50, 120) }, [[1_000_030, 1_000_080], [1_000_080, 1_001_000]]],
    ['a failure', { totalMs: 200, timeToFirstByteMs: null, stream: true, attempts: attempts(80, 80) }, [[1_000_040, 1_000_120], [1_000_120, 1_000_200]]],
    ['durations longer than the total (rounding) start at the start', { totalMs: 10, timeToFirstByteMs: 10, stream: false, attempts: attempts(8, 8) }, [[1_000_000, 1_000_008], [1_000_008, 1_000_010]]],
  ])('%s', (_label, record, expected) => {
    const timeline = generationTimeline({ ...base, ...record });
    expect(timeline.attempts.map((window) => [window.start, window.end])).toEqual(expected);
    expect(timeline.generation).toEqual({ start: 1_000_000, end: 1_000_000 + record.totalMs });
  });

  it.each([
    ['inside the request: the generation is the request', { startedAt: 1_000_002, endedAt: 1_000_008 }, { start: 1_000_000, end: 1_000_100 }, [[1_000_010, 1_000_100]]],
    // The two clocks disagree by a few ms: the attempt still follows the screening, never starts before its end.
    ['before the request\'s clock and past its end: the generation widens to hold it', { startedAt: 999_997, endedAt: 1_000_104 }, { start: 999_997, end: 1_000_104 }, [[1_000_104, 1_000_104]]],
    ['longer than the attempts leave room for: the attempts start after it', { startedAt: 1_000_001, endedAt: 1_000_030 }, { start: 1_000_000, end: 1_000_100 }, [[1_000_030, 1_000_100]]],
  ])('a screening %s', (_label, screening, generation, expected) => {
    const timeline = generationTimeline({ ...base, totalMs: 100, timeToFirstByteMs: 100, stream: false, attempts: attempts(90) }, screening);
    expect(timeline.screening).toEqual({ start: screening.startedAt, end: screening.endedAt });
    expect(timeline.generation).toEqual(generation);
    expect(timeline.attempts.map((window) => [window.start, window.end])).toEqual(expected);
  });

  it('without a screening has none', () => {
    expect(generationTimeline({ ...base, totalMs: 100, timeToFirstByteMs: 100, stream: false, attempts: attempts(90) }).screening).toBeNull();
  });
});
