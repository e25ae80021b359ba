import { describe, expect, it } from 'vitest';
import { lowerThinkingBudget, sentMaxTokens } from '#src/request/output-limit.ts';

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
