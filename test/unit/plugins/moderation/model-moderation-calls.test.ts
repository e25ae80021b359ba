import { describe, expect, it } from 'vitest';
import { callCharacters, MODEL_CALL_CHARACTERS, moderationRequest, packPieces } from '#src/plugins/moderation/model-moderation.ts';
import { combinedCharge, type ScreeningCharge } from '#src/plugins/moderation/moderation-verdict.ts';
import type { Attempt } from '#src/routing/attempt.ts';

const piece = (text: string) => ({ text, digest: text });

describe('callCharacters', () => {
  it('fits the smallest known context of the plan\'s endpoints, at 2 characters a token, with the prompt and the verdict', () => {
    const small = callCharacters([{ contextLength: 8_000 }, { contextLength: null }, { contextLength: 200_000 }]);
    expect(small).toBeLessThan((8_000 - 256) * 2);
    expect(small).toBeGreaterThan((8_000 - 256) * 2 * 0.8);
    // The whole call fits: the gateway's own estimate of it stays within the context.
    expect(Math.ceil((small + JSON.stringify(moderationRequest('m', [])).length) / 2) + 256).toBeLessThanOrEqual(8_000);
  });

  it('is capped for a large or unknown context', () => {
    expect(callCharacters([{ contextLength: 1_000_000 }])).toBe(MODEL_CALL_CHARACTERS);
    expect(callCharacters([{ contextLength: null }])).toBe(MODEL_CALL_CHARACTERS);
  });
});

describe('packPieces', () => {
  it('packs pieces in order into calls of at most the limit, separators counted', () => {
    const calls = packPieces(['a'.repeat(10), 'b'.repeat(10), 'c'.repeat(20), 'd'.repeat(5)].map(piece), 27);
    expect(calls.map((call) => call.map((one) => one.text[0]).join(''))).toEqual(['ab', 'c', 'd']);
    expect(packPieces([], 10)).toEqual([]);
  });
});

describe('combinedCharge', () => {
  const attempt = { model: 'test/guard' } as Attempt;
  const charge = (input: number, cost: number, startedAt: number, endedAt: number, cacheRead: number | null = null): ScreeningCharge => ({
    attempt,
    usage: { input_tokens: input, output_tokens: 10, cache_creation_input_tokens: null, cache_read_input_tokens: cacheRead },
    cost,
    startedAt,
    endedAt,
  });

  it('sums the calls\' tokens and costs over their whole window', () => {
    expect(combinedCharge([charge(100, 0.5, 20, 50), charge(50, 0.25, 10, 40, 7)])).toEqual({
      attempt,
      usage: { input_tokens: 150, output_tokens: 20, cache_creation_input_tokens: null, cache_read_input_tokens: 7 },
      cost: 0.75,
      startedAt: 10,
      endedAt: 50,
    });
    expect(combinedCharge([])).toBeNull();
  });
});
