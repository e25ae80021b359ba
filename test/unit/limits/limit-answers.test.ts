import { describe, expect, it } from 'vitest';
import { formatUsd, refusalError } from '#src/limits/limit-answers.ts';
import { limitPeriod } from '#src/limits/limit-period.ts';
import type { KeyLimits } from '#src/limits/key-limits.ts';

const LIMITS: KeyLimits = { creditLimit: 25, limitReset: 'monthly', requestsPerMinute: 60, tokensPerMinute: 1000, maxConcurrentStreams: 4 };
const PERIOD = limitPeriod('monthly', Date.parse('2025-11-21T10:00:00Z'));

describe('refusalError', () => {
  it.each([
    [{ ok: false, limit: 'credit', spent: 25.0012, reserved: 0 }, 402, undefined, 'Credit limit reached for this key: 25.0012 of 25 USD spent this month; it resets at 2025-12-01T00:00:00.000Z'],
    [
      { ok: false, limit: 'credit', spent: 20, reserved: 5.5 },
      429,
      '1',
      'Credit limit nearly reached for this key: 20 of 25 USD spent this month and 5.5 reserved by requests in progress; retry in 1 s',
    ],
    [{ ok: false, limit: 'requests', retryAfterMs: 11_200 }, 429, '12', 'Rate limit reached for this key: 60 requests per minute; retry in 12 s'],
    [{ ok: false, limit: 'tokens', used: 1024, retryAfterMs: 1 }, 429, '1', 'Rate limit reached for this key: 1024 of 1000 tokens per minute (input plus output) used; retry in 1 s'],
    [{ ok: false, limit: 'streams', open: 4 }, 429, '1', 'Rate limit reached for this key: 4 concurrent streams are open (max_concurrent_streams 4); retry in 1 s'],
  ] as const)('%j', (refusal, status, retryAfter, message) => {
    const error = refusalError(refusal, LIMITS, PERIOD);
    expect(error.status).toBe(status);
    expect(error.publicMessage).toBe(message);
    expect(error.headers?.['retry-after']).toBe(retryAfter);
  });

  it("names a per-minute limit under Anthropic's header names, with the exact wait and when it ends", () => {
    const nowMs = Date.parse('2026-11-27T20:00:00Z');
    expect(refusalError({ ok: false, limit: 'requests', retryAfterMs: 11_200 }, LIMITS, PERIOD, nowMs).headers).toEqual({
      'retry-after': '12',
      'retry-after-ms': '11200',
      'anthropic-ratelimit-requests-limit': '60',
      'anthropic-ratelimit-requests-remaining': '0',
      'anthropic-ratelimit-requests-reset': '2026-11-27T20:00:11.200Z',
    });
    expect(refusalError({ ok: false, limit: 'tokens', used: 1024, retryAfterMs: 1 }, LIMITS, PERIOD, nowMs).headers).toEqual({
      'retry-after': '1',
      'retry-after-ms': '1',
      'anthropic-ratelimit-tokens-limit': '1000',
      'anthropic-ratelimit-tokens-remaining': '0',
      'anthropic-ratelimit-tokens-reset': '2026-11-27T20:00:00.001Z',
    });
    expect(refusalError({ ok: false, limit: 'streams', open: 4 }, LIMITS, PERIOD, nowMs).headers).toEqual({ 'retry-after': '1', 'retry-after-ms': '1000' });
    expect(refusalError({ ok: false, limit: 'credit', spent: 25.0012, reserved: 0 }, LIMITS, PERIOD, nowMs).headers).toBeUndefined();
  });

  it('says how to spend more when the limit never resets', () => {
    expect(refusalError({ ok: false, limit: 'credit', spent: 1, reserved: 0 }, { ...LIMITS, creditLimit: 1, limitReset: null }, limitPeriod(null, 0)).publicMessage).toBe(
      'Credit limit reached for this key: 1 of 1 USD spent in total; raise the limit to spend more',
    );
  });

  it('shows USD with at most six decimals', () => {
    expect([0.1 + 0.2, 0.000201, 12, 1e-9].map(formatUsd)).toEqual(['0.3', '0.000201', '12', '0']);
  });
});
