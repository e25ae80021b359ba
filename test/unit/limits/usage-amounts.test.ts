import { describe, expect, it } from 'vitest';
import { settledAmounts, worstCase } from '#src/limits/usage-amounts.ts';
import type { Pricing } from '#src/catalog/catalog-types.ts';

const price = (input: number, output: number): Pricing => ({ input, output, cache_read: null, cache_write: null });

// "Hello there" is 11 characters: 3 tokens by the gateway's estimate.
const REQUEST = { max_tokens: 100, messages: [{ role: 'user' as const, content: 'Hello there' }] };

describe('worstCase', () => {
  it.each<[string, Pricing[], number]>([
    ['no endpoint price', [], 0],
    ['one price: input estimate plus max_tokens of output', [price(3, 15)], (3 * 3 + 100 * 15) / 1e6],
    ['the dearest of the plan', [price(3, 15), price(10, 30)], (3 * 10 + 100 * 30) / 1e6],
    ['input at the one-hour cache write price when it is dearer', [{ ...price(3, 15), cache_write: 3.75, cache_write_1h: 6 }], (3 * 6 + 100 * 15) / 1e6],
    ['input at the cache write price without a one-hour price', [{ ...price(3, 15), cache_write: 3.75 }], (3 * 3.75 + 100 * 15) / 1e6],
    // A write of a lifetime no price names costs the dearest write price, whichever of the two that is.
    ['input at the default write price when it is dearer than the one-hour one', [{ ...price(3, 15), cache_write: 7, cache_write_1h: 6 }], (3 * 7 + 100 * 15) / 1e6],
    // Perplexity bills each request by the search context size the answer reports: the dearest is reserved.
    ['a per-request search fee at its high tier', [{ ...price(1, 1), search_request: { low: 0.005, medium: 0.008, high: 0.012 } }], (3 + 100) / 1e6 + 0.012],
  ])('%s', (_name, pricings, cost) => {
    const worst = worstCase(REQUEST, pricings);
    expect(worst.cost).toBeCloseTo(cost, 12);
    expect(worst.tokens).toBe(103);
  });

  describe('what Anthropic bills beyond the tokens, where the request bounds it', () => {
    const search = (extra: Record<string, unknown>) => ({ type: 'web_search_20250305', name: 'web_search', ...extra }) as never;
    const searching = { ...price(3, 15), web_search_request: 0.01 };
    const tools = (request: Parameters<typeof worstCase>[0]) => worstCase(request, [searching]).cost - worstCase({ ...request, tools: [] }, [searching]).cost;
    it.each<[string, unknown[], number]>([
      ['max_uses searches of a web search tool', [search({ max_uses: 5 })], 0.05],
      ['those of every web search tool', [search({ max_uses: 2 }), search({ name: 'search_more', max_uses: 1 })], 0.03],
      ['none without max_uses: nothing bounds them', [search({})], 0],
      ['none for another tool', [{ type: 'web_fetch_20250910', name: 'web_fetch', max_uses: 4 }], 0],
    ])('%s', (_name, requestTools, fee) => {
      // The tool definitions' own tokens are in the estimate either way; the difference is the fee (tokens at $3 a million: a ten-thousandth of a dollar).
      expect(tools({ ...REQUEST, tools: requestTools as never })).toBeCloseTo(fee, 3);
    });

    it('no fee where the endpoint prices no search', () => {
      const request = { ...REQUEST, tools: [search({ max_uses: 5 })] };
      expect(worstCase(request, [price(3, 15)]).cost).toBeCloseTo(worstCase({ ...request, tools: [] }, [price(3, 15)]).cost, 4);
    });

    it('a compaction edit reads the prompt twice', () => {
      const compacting = { ...REQUEST, context_management: { edits: [{ type: 'compact_20260112' }] } } as Parameters<typeof worstCase>[0];
      const clearing = { ...REQUEST, context_management: { edits: [{ type: 'clear_thinking_20251015' }] } } as Parameters<typeof worstCase>[0];
      expect(worstCase(compacting, [price(3, 15)])).toEqual({ cost: (6 * 3 + 100 * 15) / 1e6, tokens: 106 });
      expect(worstCase(clearing, [price(3, 15)])).toEqual(worstCase(REQUEST, [price(3, 15)]));
    });
  });

  it('counts system text, tools and images in the estimate', () => {
    const tokens = worstCase(
      { max_tokens: 10, system: 'x'.repeat(40), tools: [], messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://example.org/a.png' } }] }] },
      [],
    ).tokens;
    expect(tokens).toBe(10 + 10 + 1_600);
  });
});

describe('settledAmounts', () => {
  it.each([
    ['an answer', { input_tokens: 12, output_tokens: 30, cache_read_input_tokens: 100, cache_creation_input_tokens: 5, cost: 0.0012 }, { cost: 0.0012, tokens: 147 }],
    ['a failure before any usage', null, { cost: 0, tokens: 0 }],
    ['a stream cut before its message_delta', { input_tokens: 12 }, { cost: 0, tokens: 12 }],
    ['nonsense', { input_tokens: -3, output_tokens: Number.NaN, cost: Number.POSITIVE_INFINITY }, { cost: 0, tokens: 0 }],
  ])('%s', (_name, usage, amounts) => {
    expect(settledAmounts(usage as never)).toEqual(amounts);
  });
});
