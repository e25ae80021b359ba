import { describe, expect, it } from 'vitest';
import { ownKeyRateLimitHeaders, ownKeyRateLimitHeadersOfFailures } from '#src/messages/own-key-rate-limits.ts';

const OWN = { credential: { kind: 'byok', credentialId: 'cred-1' } } as const;
const SHARED = { credential: { kind: 'shared' } } as const;
const UPSTREAM = {
  'content-type': 'application/json',
  'request-id': 'req_01',
  'anthropic-ratelimit-requests-limit': '50',
  'anthropic-ratelimit-requests-remaining': '49',
  'anthropic-ratelimit-unified-status': 'allowed',
  'retry-after': '3',
  'anthropic-ratelimit-tokens-reset': ['2026-11-27T20:00:00Z', '2026-11-27T20:00:01Z'],
  'anthropic-ratelimit-tokens-limit': undefined,
};

describe('ownKeyRateLimitHeaders', () => {
  it.each([
    ['the caller’s own key: the anthropic-ratelimit-* headers as received, nothing else', OWN, UPSTREAM, {
      'anthropic-ratelimit-requests-limit': '50',
      'anthropic-ratelimit-requests-remaining': '49',
      'anthropic-ratelimit-unified-status': 'allowed',
    }],
    ['a shared key: none', SHARED, UPSTREAM, undefined],
    ['the caller’s own key without such headers: none', OWN, { 'content-type': 'application/json' }, undefined],
    ['an adapter that gives no headers: none', OWN, undefined, undefined],
    ['counts, fractions, times and words pass; a quoted key or a value of another shape does not', OWN, {
      'anthropic-ratelimit-tokens-reset': '2026-11-27T20:00:11.200Z',
      'anthropic-ratelimit-unified-reset': '1764273600',
      'anthropic-ratelimit-unified-fallback-percentage': '0.5',
      'anthropic-ratelimit-unified-representative-claim': 'five_hour',
      'anthropic-ratelimit-requests-remaining': 'sk-ant-api03-quotedKey0123456789',
      'anthropic-ratelimit-tokens-remaining': '49 (key sk-ant-quoted)',
      'anthropic-ratelimit-unified-status': 'Bearer abc',
    }, {
      'anthropic-ratelimit-tokens-reset': '2026-11-27T20:00:11.200Z',
      'anthropic-ratelimit-unified-reset': '1764273600',
      'anthropic-ratelimit-unified-fallback-percentage': '0.5',
      'anthropic-ratelimit-unified-representative-claim': 'five_hour',
    }],
  ] as const)('%s', (_name, attempt, headers, expected) => {
    expect(ownKeyRateLimitHeaders(attempt, headers)).toEqual(expected);
  });
});

describe('ownKeyRateLimitHeadersOfFailures', () => {
  const refused = (attempt: typeof OWN | typeof SHARED, remaining: string, retryAfter?: string) => ({
    attempt,
    error: { upstreamHeaders: { 'anthropic-ratelimit-requests-remaining': remaining }, headers: retryAfter === undefined ? undefined : { 'retry-after': retryAfter } },
  });

  it.each([
    ['only shared keys: none', [refused(SHARED, '0', '1')], undefined],
    ['the caller’s own key among shared ones: its headers', [refused(SHARED, '0', '1'), refused(OWN, '5', '9')], { 'anthropic-ratelimit-requests-remaining': '5' }],
    ['two own keys: the one asking for the shorter wait', [refused(OWN, '1', '9'), refused(OWN, '2', '4')], { 'anthropic-ratelimit-requests-remaining': '2' }],
    ['two own keys, neither naming a wait: the first', [refused(OWN, '1'), refused(OWN, '2')], { 'anthropic-ratelimit-requests-remaining': '1' }],
    ['none: none', [], undefined],
  ] as const)('%s', (_name, failed, expected) => {
    expect(ownKeyRateLimitHeadersOfFailures(failed)).toEqual(expected);
  });
});
