import { describe, expect, it } from 'vitest';
import { lowerThinkingBudget, sentMaxTokens, withinOutputLimit } from '#src/request/output-limit.ts';

describe('sentMaxTokens', () => {
  it.each([
    [32_000, 8192, 8192],
    [4096, 8192, 4096],
    [8192, 8192, 8192],
    [32_000, null, 32_000],
    [32_000, undefined, 32_000],
  ])('max_tokens %i with output limit %s is sent as %i', (maxTokens, limit, sent) => {
    expect(sentMaxTokens(maxTokens, limit)).toBe(sent);
  });
});

describe('lowerThinkingBudget', () => {
  it.each([
    // Below the lowered limit: kept.
    [4000, 32_000, 8192, 4000],
    // Not below it: the share of the output kept, rounded down, below the limit.
    [31_999, 32_000, 8192, 8191],
    [20_000, 32_000, 8192, 5120],
    [8192, 10_000, 8192, 6710],
    [2000, 2000, 1024, 1023],
  ])('budget %i of max_tokens %i lowered to %i is %i', (budget, maxTokens, lowered, expected) => {
    expect(lowerThinkingBudget(budget, maxTokens, lowered)).toBe(expected);
  });
});

describe('withinOutputLimit', () => {
  it('returns the request itself, without warnings, when max_tokens is within the limit or the limit unknown', () => {
    const request = { max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 } };
    for (const limit of [8192, 4096, null, undefined]) expect(withinOutputLimit(request, limit)).toEqual({ value: request, warnings: [] });
    expect(withinOutputLimit(request, 8192).value).toBe(request);
  });

  it.each([
    ['no thinking', { max_tokens: 128_000 }, 64_000, { max_tokens: 64_000 }, 1],
    ['a budget below the limit', { max_tokens: 132_096, thinking: { type: 'enabled', budget_tokens: 4096 } }, 64_000, { max_tokens: 64_000, thinking: { type: 'enabled', budget_tokens: 4096 } }, 1],
    ['a budget above the limit', { max_tokens: 168_000, thinking: { type: 'enabled', budget_tokens: 40_000 } }, 32_000, { max_tokens: 32_000, thinking: { type: 'enabled', budget_tokens: 7619 } }, 2],
    ['adaptive thinking', { max_tokens: 128_000, thinking: { type: 'adaptive' } }, 64_000, { max_tokens: 64_000, thinking: { type: 'adaptive' } }, 1],
  ])('%s: lowered, with a warning per lowered value', (_name, request, limit, expected, warningCount) => {
    const { value, warnings } = withinOutputLimit(request as { max_tokens: number; thinking?: unknown }, limit);
    expect(value).toEqual(expected);
    expect(warnings).toHaveLength(warningCount);
    expect(warnings[0]).toBe(`max_tokens ${request.max_tokens} lowered to ${limit}: the endpoint's output limit`);
  });
});
