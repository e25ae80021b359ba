import { describe, expect, it } from 'vitest';
import { MAX_TOKENS_HEADER, withMaxTokensHeader } from '#src/messages/max-tokens-header.ts';

describe('withMaxTokensHeader', () => {
  const headers = { 'anthropic-ratelimit-requests-limit': '60' };

  it.each([
    ['within the limit', 4096, 64_000],
    ['at the limit', 64_000, 64_000],
    ['limit unknown', 128_000, null],
    ['cache pre-warming', 0, 64_000],
  ])('returns the headers themselves when nothing was lowered: %s', (_name, asked, limit) => {
    expect(withMaxTokensHeader(headers, asked, { maxOutputTokens: limit })).toBe(headers);
    expect(withMaxTokensHeader(undefined, asked, { maxOutputTokens: limit })).toBeUndefined();
  });

  it('adds the value sent when lowered, keeping the other headers', () => {
    expect(withMaxTokensHeader(headers, 128_000, { maxOutputTokens: 64_000 })).toEqual({ ...headers, [MAX_TOKENS_HEADER]: '64000' });
    expect(withMaxTokensHeader(undefined, 32_000, { maxOutputTokens: 8192 })).toEqual({ [MAX_TOKENS_HEADER]: '8192' });
  });
});
