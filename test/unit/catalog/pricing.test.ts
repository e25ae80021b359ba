import { describe, expect, it } from 'vitest';
import type { Pricing } from '#src/catalog/catalog-types.ts';
import { loadCatalog } from '#src/catalog/load-catalog.ts';
import {
  computeAnthropicCost,
  computeCost,
  scalePricing,
  searchRequestFee,
  selectPricing,
  usageFromAnthropic,
  usageFromInclusivePrompt,
  usageFromLanguageModelUsage,
  type TokenUsage,
} from '#src/catalog/pricing.ts';

const SONNET: Pricing = {
  input: 3,
  output: 15,
  cache_read: 0.3,
  cache_write: 3.75,
  cache_write_1h: 6,
  long_context: { threshold_tokens: 200_000, input: 6, output: 22.5, cache_read: 0.6, cache_write: 7.5, cache_write_1h: 12 },
};
const GPT5: Pricing = { input: 1.25, output: 10, cache_read: 0.125, cache_write: null };
const NO_CACHE_PRICES: Pricing = { input: 0.59, output: 0.79, cache_read: null, cache_write: null };

const usage = (fields: Partial<TokenUsage>): TokenUsage => ({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, ...fields });

describe('computeCost', () => {
  it.each([
    ['nothing', SONNET, usage({}), 0],
    ['input and output', SONNET, usage({ inputTokens: 1_000, outputTokens: 500 }), 0.0105],
    ['one million output tokens', SONNET, usage({ outputTokens: 1_000_000 }), 15],
    ['cache reads at their own price', SONNET, usage({ inputTokens: 100, cacheReadTokens: 10_000, outputTokens: 100 }), 0.0048],
    ['5-minute cache writes', SONNET, usage({ inputTokens: 10, cacheWriteTokens: 20_000, outputTokens: 50 }), 0.07578],
    ['1-hour cache writes at their own price', SONNET, usage({ cacheWriteTokens: 20_000, cacheWrite1hTokens: 5_000 }), 0.08625],
    ['reasoning is output', GPT5, usage({ inputTokens: 2_000, outputTokens: 8_000 }), 0.0825],
    ['automatic cache hits, no write price', GPT5, usage({ inputTokens: 1_000, cacheReadTokens: 9_000, outputTokens: 100 }), 0.0033750],
    ['cache writes without a write price cost input', GPT5, usage({ cacheWriteTokens: 1_000 }), 0.00125],
    ['cache reads without a read price cost input', NO_CACHE_PRICES, usage({ inputTokens: 1_000, cacheReadTokens: 1_000, outputTokens: 1_000 }), 0.00197],
    ['a prompt at the long-context threshold stays at base rates', SONNET, usage({ inputTokens: 150_000, cacheReadTokens: 50_000, outputTokens: 1_000 }), 0.48],
    ['a prompt over the threshold pays long-context rates on every token', SONNET, usage({ inputTokens: 150_000, cacheReadTokens: 50_001, outputTokens: 1_000 }), 0.9525006],
    ['cache writes count towards the threshold', SONNET, usage({ inputTokens: 1, cacheWriteTokens: 200_000 }), 1.500006],
    // 10,000 five-minute writes at $3.75 and 10,000 of an unknown lifetime at the dearer $6.
    ['writes of an unknown lifetime at the dearest write price', SONNET, usage({ cacheWriteTokens: 20_000, cacheWriteUnknownTokens: 10_000 }), 0.0975],
    ['the dearest write price is the default one when the one-hour price is lower', { ...SONNET, cache_write_1h: 1 }, usage({ cacheWriteTokens: 1_000, cacheWriteUnknownTokens: 1_000 }), 0.00375],
    ['without a one-hour price, unknown lifetimes cost the default write price', GPT5, usage({ cacheWriteTokens: 1_000, cacheWriteUnknownTokens: 1_000 }), 0.00125],
  ])('%s', (_case, pricing, tokens, expected) => {
    expect(computeCost(tokens, pricing)).toBeCloseTo(expected, 12);
  });

  it('keeps full precision instead of rounding to cents', () => {
    expect(computeCost(usage({ inputTokens: 1, outputTokens: 1 }), SONNET)).toBeCloseTo(0.000018, 15);
  });

  it.each([
    ['negative', usage({ inputTokens: -1 })],
    ['not finite', usage({ outputTokens: Number.NaN })],
    ['more 1-hour writes than writes', usage({ cacheWriteTokens: 1, cacheWrite1hTokens: 2 })],
    ['more 1-hour and unknown-lifetime writes than writes', usage({ cacheWriteTokens: 2, cacheWrite1hTokens: 1, cacheWriteUnknownTokens: 2 })],
    ['negative unknown-lifetime writes', usage({ cacheWriteTokens: 2, cacheWriteUnknownTokens: -1 })],
  ])('rejects usage that is %s', (_case, tokens) => {
    expect(() => computeCost(tokens, SONNET)).toThrow(RangeError);
  });
});

describe('computeAnthropicCost', () => {
  const answer = { input_tokens: 1_000, output_tokens: 500 };
  const compaction = (fields: Record<string, unknown>) => ({ type: 'compaction', input_tokens: 0, output_tokens: 0, ...fields });
  it.each([
    ['no iterations: the answer alone', answer, 0.0105],
    ['the answer listed as its own iteration is not counted twice', { ...answer, iterations: [{ type: 'message', ...answer }] }, 0.0105],
    ['a compaction iteration is added', { ...answer, iterations: [compaction({ input_tokens: 10_000, output_tokens: 100 }), { type: 'message', ...answer }] }, 0.0105 + 0.0315],
    // Priced on its own: the compaction read 250,000 tokens (long-context rates), the answer 1,000 (base rates).
    ['each iteration at its own tier', { ...answer, iterations: [compaction({ input_tokens: 250_000, output_tokens: 1_000 })] }, 0.0105 + 1.5 + 0.0225],
    ['its cache reads and one-hour writes at their prices', { ...answer, iterations: [compaction({ cache_read_input_tokens: 10_000, cache_creation_input_tokens: 2_000, cache_creation: { ephemeral_1h_input_tokens: 1_000 } })] }, 0.0105 + 0.003 + 0.00375 + 0.006],
    ['malformed counts are read as none', { ...answer, iterations: [compaction({ input_tokens: -5, output_tokens: 'many' }), null] }, 0.0105],
    // A lifetime Anthropic adds comes under a key of its own: what neither known key holds costs $6, not $3.75.
    ['writes under an unknown lifetime at the dearest write price', { ...answer, cache_creation_input_tokens: 3_000, cache_creation: { ephemeral_5m_input_tokens: 1_000, ephemeral_1h_input_tokens: 1_000, ephemeral_24h_input_tokens: 1_000 } }, 0.0105 + 0.00375 + 0.006 + 0.006],
    ['an iteration\'s unknown-lifetime writes too', { ...answer, iterations: [compaction({ cache_creation_input_tokens: 2_000, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 } })] }, 0.0105 + 0.012],
    ['without a five-minute count, the rest are five-minute writes', { ...answer, cache_creation_input_tokens: 2_000, cache_creation: { ephemeral_1h_input_tokens: 1_000 } }, 0.0105 + 0.00375 + 0.006],
  ])('%s', (_name, fields, expected) => {
    expect(computeAnthropicCost(fields as Parameters<typeof computeAnthropicCost>[0], SONNET)).toBeCloseTo(expected, 12);
  });

  // The provider's other models by Anthropic id: an advisor's or a fallback's iteration names its own.
  const OPUS: Pricing = { input: 5, output: 25, cache_read: null, cache_write: null };
  const byModel = new Map([['claude-opus-4-7', OPUS]]);
  const iteration = (type: string, model: string, input: number, output: number) => ({ type, model, input_tokens: input, output_tokens: output });
  it.each([
    // 2,000 in and 400 out at Opus's $5/$25: $0.02 beside the answer's $0.0105 at Sonnet's.
    ['an advisor iteration is added at its model\'s prices', { ...answer, iterations: [{ type: 'message', ...answer }, iteration('advisor_message', 'claude-opus-4-7', 2_000, 400)] }, 0.0105 + 0.02],
    ['a dated model id finds its undated price', { ...answer, iterations: [iteration('advisor_message', 'claude-opus-4-7-20260301', 2_000, 400)] }, 0.0105 + 0.02],
    ['a model the catalog lacks is priced as the requested one', { ...answer, iterations: [iteration('advisor_message', 'claude-unknown-9', 2_000, 400)] }, 0.0105 + 0.012],
    // The top-level counts are the fallback_message's: every iteration on its own, the refused one included.
    ['a fallback-served answer: each iteration at its model\'s prices', { ...answer, iterations: [iteration('message', 'claude-sonnet-test', 900, 0), iteration('fallback_message', 'claude-opus-4-7', 1_000, 500)] }, 0.0027 + 0.0175],
  ])('%s', (_name, fields, expected) => {
    expect(computeAnthropicCost(fields as Parameters<typeof computeAnthropicCost>[0], SONNET, byModel)).toBeCloseTo(expected, 12);
  });

  const SEARCHING: Pricing = { ...SONNET, web_search_request: 0.01 };
  it.each([
    ['each search at the per-search price', SEARCHING, { ...answer, server_tool_use: { web_search_requests: 3, web_fetch_requests: 2 } }, 0.0105 + 0.03],
    ['no search, no fee', SEARCHING, { ...answer, server_tool_use: { web_search_requests: 0 } }, 0.0105],
    ['without a per-search price, searches cost only their tokens', SONNET, { ...answer, server_tool_use: { web_search_requests: 3 } }, 0.0105],
    // The fee is per search: a prompt over the long-context threshold does not change it.
    ['the same fee at the long-context tier', SEARCHING, { input_tokens: 250_000, output_tokens: 0, server_tool_use: { web_search_requests: 1 } }, 1.5 + 0.01],
    ['a malformed count is read as none', SEARCHING, { ...answer, server_tool_use: { web_search_requests: -2 } }, 0.0105],
    ['with a compaction iteration too', SEARCHING, { ...answer, server_tool_use: { web_search_requests: 1 }, iterations: [compaction({ input_tokens: 10_000, output_tokens: 100 })] }, 0.0105 + 0.0315 + 0.01],
  ])('web search fee: %s', (_name, pricing, fields, expected) => {
    expect(computeAnthropicCost(fields as Parameters<typeof computeAnthropicCost>[0], pricing)).toBeCloseTo(expected, 12);
  });
});

describe('selectPricing', () => {
  const catalog = loadCatalog({ env: {} });
  const opus = catalog.getEndpoint('anthropic/claude-opus-5.5@anthropic');
  const haiku = catalog.getEndpoint('anthropic/claude-haiku-4.5@anthropic');
  if (!opus || !haiku) throw new Error('built-in endpoints missing');

  it.each([
    ['standard', 'standard', 4],
    ['omitted', undefined, 4],
    ['null', null, 4],
    ['fast at its premium', 'fast', 8],
  ] as const)('speed %s', (_case, speed, input) => {
    expect(selectPricing(opus, speed)?.input).toBe(input);
  });

  it('has no price for fast on an endpoint without a fast variant', () => {
    expect(selectPricing(haiku, 'fast')).toBeNull();
  });

  it('prices a fast Opus 5.5 request at twice standard, its cache reads too (Anthropic: $8/$40, caching multipliers on top)', () => {
    const tokens = usage({ inputTokens: 10_000, outputTokens: 2_000, cacheReadTokens: 5_000 });
    const fast = selectPricing(opus, 'fast');
    if (!fast) throw new Error('no fast price');
    expect(computeCost(tokens, fast)).toBeCloseTo(2 * computeCost(tokens, opus.pricing), 12);
    // 10,000 x $8 + 2,000 x $40 + 5,000 x $0.40, per million.
    expect(computeCost(tokens, fast)).toBeCloseTo(0.162, 12);
  });
});

describe('usage normalization', () => {
  it('takes Anthropic usage as it is, splitting 1-hour cache writes', () => {
    expect(
      usageFromAnthropic({
        input_tokens: 12,
        output_tokens: 340,
        cache_creation_input_tokens: 2_000,
        cache_read_input_tokens: 8_000,
        cache_creation: { ephemeral_5m_input_tokens: 500, ephemeral_1h_input_tokens: 1_500 },
      }),
    ).toEqual({ inputTokens: 12, outputTokens: 340, cacheReadTokens: 8_000, cacheWriteTokens: 2_000, cacheWrite1hTokens: 1_500 });
    expect(usageFromAnthropic({ input_tokens: 5, output_tokens: 6, cache_creation_input_tokens: null, cache_read_input_tokens: null })).toEqual({
      inputTokens: 5,
      outputTokens: 6,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
    });
  });

  it('removes cached tokens from an inclusive prompt count so they are not billed twice', () => {
    const tokens = usageFromInclusivePrompt({ promptTokens: 10_000, cachedTokens: 9_000, outputTokens: 100 });
    expect(tokens).toEqual({ inputTokens: 1_000, outputTokens: 100, cacheReadTokens: 9_000, cacheWriteTokens: 0 });
    expect(computeCost(tokens, GPT5)).toBeCloseTo(0.003375, 12);
  });

  it.each([
    [
      'OpenAI-style (total includes cache reads)',
      { inputTokens: { total: 10_000, noCache: 1_000, cacheRead: 9_000, cacheWrite: undefined }, outputTokens: { total: 700, text: 200, reasoning: 500 } },
      { inputTokens: 1_000, outputTokens: 700, cacheReadTokens: 9_000, cacheWriteTokens: 0 },
    ],
    [
      'no noCache count',
      { inputTokens: { total: 10_000, noCache: undefined, cacheRead: 4_000, cacheWrite: 1_000 }, outputTokens: { total: undefined, text: 30, reasoning: 70 } },
      { inputTokens: 5_000, outputTokens: 100, cacheReadTokens: 4_000, cacheWriteTokens: 1_000 },
    ],
    [
      'nothing reported',
      { inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: undefined, text: undefined, reasoning: undefined } },
      { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    ],
  ])('AI SDK usage: %s', (_case, sdkUsage, expected) => {
    expect(usageFromLanguageModelUsage(sdkUsage)).toEqual(expected);
  });
});

describe('the 5.5 Claude models Claude Code picks by itself', () => {
  const catalog = loadCatalog({ env: {} });
  const priced = (slug: string) => {
    const endpoint = catalog.getEndpoint(`${slug}@anthropic`);
    if (!endpoint) throw new Error(`${slug} missing`);
    return endpoint.pricing;
  };

  it.each([
    // 1M input at $4, 1M cache reads at $0.20 (0.05x), 1M 5-minute writes at $5, 1M output at $20.
    ['anthropic/claude-opus-5.5', usage({ inputTokens: 1_000_000, cacheReadTokens: 1_000_000, cacheWriteTokens: 1_000_000, outputTokens: 1_000_000 }), 29.2],
    // 1M input at $2, 1M cache reads at $0.10 (0.05x since 2026-10-07), 1M one-hour writes at $4, 1M output at $10.
    ['anthropic/claude-sonnet-5.5', usage({ inputTokens: 1_000_000, cacheReadTokens: 1_000_000, cacheWriteTokens: 1_000_000, cacheWrite1hTokens: 1_000_000, outputTokens: 1_000_000 }), 16.1],
    // Haiku 5.5: up to 100K prompt tokens $0.10 in, $0.50 out; over it, every rate five times.
    ['anthropic/claude-haiku-5.5', usage({ inputTokens: 100_000, outputTokens: 1_000_000 }), 0.51],
    ['anthropic/claude-haiku-5.5', usage({ inputTokens: 100_000, cacheReadTokens: 1, outputTokens: 1_000_000 }), 2.55000005],
  ])('%s prices %j at $%d', (slug, tokens, dollars) => {
    expect(computeCost(tokens, priced(slug))).toBeCloseTo(dollars, 9);
  });
});

describe('scalePricing', () => {
  it('scales every token price, the long-context tier too, and leaves nulls and the per-search fee alone', () => {
    const scaled = scalePricing(
      { input: 2, output: 10, cache_read: null, cache_write: 2.5, cache_write_1h: 4, web_search_request: 0.01, long_context: { threshold_tokens: 100, input: 4, output: 20, cache_read: 0.4, cache_write: null } },
      1.1,
    );
    expect(scaled.input).toBeCloseTo(2.2, 12);
    expect(scaled.output).toBeCloseTo(11, 12);
    expect(scaled.cache_read).toBeNull();
    expect(scaled.cache_write).toBeCloseTo(2.75, 12);
    expect(scaled.cache_write_1h).toBeCloseTo(4.4, 12);
    expect(scaled.web_search_request).toBe(0.01);
    expect(scaled.long_context).toMatchObject({ threshold_tokens: 100, cache_write: null });
    expect(scaled.long_context?.input).toBeCloseTo(4.4, 12);
    expect(scaled.long_context?.cache_read).toBeCloseTo(0.44, 12);
    expect('cache_write_1h' in (scaled.long_context ?? {})).toBe(false);
  });
});

describe('searchRequestFee', () => {
  const sonar: Pricing = { input: 1, output: 1, cache_read: null, cache_write: null, search_request: { low: 0.005, medium: 0.008, high: 0.012 } };
  it.each<[string | null | undefined, number]>([
    ['low', 0.005],
    ['medium', 0.008],
    ['high', 0.012],
    // Perplexity's default when the answer names none, and for a size it does not price.
    [null, 0.005],
    [undefined, 0.005],
    ['huge', 0.005],
  ])('search context %s costs %s a request', (size, fee) => {
    expect(searchRequestFee(size, sonar)).toBe(fee);
    expect(computeAnthropicCost({ input_tokens: 10, output_tokens: 20, search_context_size: size }, sonar)).toBeCloseTo(30 / 1e6 + fee, 12);
  });

  it('costs nothing where the endpoint prices no request', () => {
    expect(searchRequestFee('high', { input: 1, output: 1, cache_read: null, cache_write: null })).toBe(0);
  });
});
