/**
 * The wait before a destination delivery's retry: the destination's `Retry-After` (delay-seconds or an HTTP
 * date) when it sent one, capped so a destination asking for an hour is tried again within a minute; the
 * gateway's own jittered exponential backoff otherwise.
 */
import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_MS, retryDelayMs } from '#src/observability/broadcast/post-json.ts';

const NOW = Date.parse('2026-11-27T12:00:00Z');

describe('retryDelayMs', () => {
  it.each([
    ['delay-seconds', '7', 7_000],
    ['zero seconds', '0', 0],
    ['an HTTP date 5 s ahead', 'Fri, 27 Nov 2026 12:00:05 GMT', 5_000],
    ['an HTTP date in the past', 'Fri, 27 Nov 2026 11:59:00 GMT', 0],
    ['an hour, capped', '3600', MAX_RETRY_AFTER_MS],
    ['a date a day ahead, capped', 'Sat, 28 Nov 2026 12:00:00 GMT', MAX_RETRY_AFTER_MS],
  ])('honours %s', (_case, header, expected) => {
    expect(retryDelayMs(1, 1_000, header, NOW)).toBe(expected);
  });

  it.each([undefined, '', 'soon', '-4'])('falls back to jittered backoff for %j', (header) => {
    for (const index of [1, 2, 3]) {
      const full = 1_000 * 2 ** (index - 1);
      const delay = retryDelayMs(index, 1_000, header, NOW);
      expect(delay).toBeGreaterThanOrEqual(full / 2);
      expect(delay).toBeLessThanOrEqual(full);
    }
  });
});
