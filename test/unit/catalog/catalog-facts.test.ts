/**
 * Catalog facts checked against sources (see the comments beside the data in src/catalog/models/): Bedrock's
 * cross-region inference profiles of the Claude models and their cache prices, Perplexity's request fees and
 * the prices corrected from LiteLLM's price file or the vendor's own page. A table per fact, so a change to the
 * data has to change the table with it.
 */
import { describe, expect, it } from 'vitest';
import type { CatalogEndpoint } from '#src/catalog/catalog-types.ts';
import { loadCatalog } from '#src/catalog/load-catalog.ts';

const catalog = loadCatalog({ env: {} });

function endpointOf(slug: string, provider: string): CatalogEndpoint {
  const endpoint = catalog.getModel(slug)?.endpoints.find((candidate) => candidate.provider.slug === provider);
  if (!endpoint) throw new Error(`no ${provider} endpoint for ${slug}`);
  return endpoint;
}

describe("Bedrock's inference profiles of the Claude models", () => {
  it.each([
    { slug: 'anthropic/claude-opus-5.5', global: 'global.anthropic.claude-opus-5-5', us: 'us.anthropic.claude-opus-5-5', europe: 'eu.anthropic.claude-opus-5-5' },
    { slug: 'anthropic/claude-sonnet-5.5', global: 'global.anthropic.claude-sonnet-5-5', us: 'us.anthropic.claude-sonnet-5-5', europe: 'eu.anthropic.claude-sonnet-5-5' },
    { slug: 'anthropic/claude-haiku-5.5', global: 'global.anthropic.claude-haiku-5-5', us: 'us.anthropic.claude-haiku-5-5', europe: 'eu.anthropic.claude-haiku-5-5' },
    { slug: 'anthropic/claude-opus-4.6', global: 'global.anthropic.claude-opus-4-6-v1', us: 'us.anthropic.claude-opus-4-6-v1', europe: 'eu.anthropic.claude-opus-4-6-v1' },
    { slug: 'anthropic/claude-sonnet-4.5', global: 'global.anthropic.claude-sonnet-4-5-20250929-v1:0', us: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', europe: 'eu.anthropic.claude-sonnet-4-5-20250929-v1:0' },
  ])('$slug: global, us and eu profiles, the geo ones 10% over the list price', ({ slug, global, us, europe }) => {
    const endpoint = endpointOf(slug, 'bedrock');
    expect([endpoint.upstreamModel, endpoint.regionalModels.us, endpoint.regionalModels.europe]).toEqual([global, us, europe]);
    expect(endpoint.regions).toEqual(['global', 'us', 'europe']);
    for (const region of ['us', 'europe'] as const) {
      expect(endpoint.regionalPricing[region]?.input, region).toBeCloseTo(endpoint.pricing.input * 1.1, 12);
      expect(endpoint.regionalPricing[region]?.output, region).toBeCloseTo(endpoint.pricing.output * 1.1, 12);
    }
  });

  it('Claude Sonnet 4: us profile, eu for europe, both at the list price', () => {
    const endpoint = endpointOf('anthropic/claude-sonnet-4', 'bedrock');
    expect([endpoint.upstreamModel, endpoint.regionalModels.europe, endpoint.regions]).toEqual(['us.anthropic.claude-sonnet-4-20250514-v1:0', 'eu.anthropic.claude-sonnet-4-20250514-v1:0', ['us', 'europe']]);
    expect(endpoint.regionalPricing).toEqual({});
  });

  it('Claude Opus 4.1: the us profile only', () => {
    const endpoint = endpointOf('anthropic/claude-opus-4.1', 'bedrock');
    expect([endpoint.upstreamModel, endpoint.regions, endpoint.regionalModels]).toEqual(['us.anthropic.claude-opus-4-1-20250805-v1:0', ['us'], {}]);
  });
});

describe("Bedrock's prompt-cache prices", () => {
  it.each([
    { slug: 'anthropic/claude-opus-5.5', input: 4, read: 0.2, write: 5, write1h: 8 },
    { slug: 'anthropic/claude-sonnet-5.5', input: 2, read: 0.1, write: 2.5, write1h: 4 },
    { slug: 'anthropic/claude-haiku-5.5', input: 0.1, read: 0.01, write: 0.125, write1h: 0.2 },
    { slug: 'anthropic/claude-opus-4.6', input: 5, read: 0.5, write: 6.25, write1h: 10 },
    { slug: 'anthropic/claude-opus-4.5', input: 5, read: 0.5, write: 6.25, write1h: 10 },
    { slug: 'anthropic/claude-sonnet-4.5', input: 3, read: 0.3, write: 3.75, write1h: 6 },
    { slug: 'anthropic/claude-haiku-4.5', input: 1, read: 0.1, write: 1.25, write1h: 2 },
    // No one-hour lifetime on Bedrock for these two: LiteLLM's price file has no one-hour price for them.
    { slug: 'anthropic/claude-sonnet-4', input: 3, read: 0.3, write: 3.75, write1h: null },
    { slug: 'anthropic/claude-opus-4.1', input: 15, read: 1.5, write: 18.75, write1h: null },
  ])('$slug: read $read, 5-minute write $write, 1-hour write $write1h', ({ slug, input, read, write, write1h }) => {
    const { pricing } = endpointOf(slug, 'bedrock');
    expect(pricing.input).toBeCloseTo(input, 12);
    expect(pricing.cache_read).toBeCloseTo(read, 12);
    expect(pricing.cache_write).toBeCloseTo(write, 12);
    if (write1h === null) expect(pricing.cache_write_1h).toBeNull();
    else expect(pricing.cache_write_1h).toBeCloseTo(write1h, 12);
  });
});

describe('prices checked against vendor pages and LiteLLM', () => {
  it.each([
    { slug: 'perplexity/sonar', provider: 'perplexity', input: 1, output: 1, search: { low: 0.005, medium: 0.008, high: 0.012 } },
    { slug: 'perplexity/sonar-pro', provider: 'perplexity', input: 3, output: 15, search: { low: 0.006, medium: 0.01, high: 0.014 } },
    { slug: 'openai/gpt-oss-120b', provider: 'cerebras', input: 0.35, output: 0.75, search: undefined },
    { slug: 'openai/o3', provider: 'openai', input: 2, output: 8, search: undefined },
    { slug: 'openai/o4-mini', provider: 'openai', input: 1.1, output: 4.4, search: undefined },
  ])('$slug on $provider: $input/$output', ({ slug, provider, input, output, search }) => {
    const { pricing } = endpointOf(slug, provider);
    expect([pricing.input, pricing.output]).toEqual([input, output]);
    expect(pricing.search_request).toEqual(search);
  });

  // openai.com/api-fast-mode (Priority processing renamed Fast mode): one rate at every prompt length for these.
  it.each([
    { slug: 'openai/gpt-5', input: 2.5, output: 20, read: 0.25 },
    { slug: 'openai/gpt-5-mini', input: 0.45, output: 3.6, read: 0.045 },
    { slug: 'openai/gpt-4.1', input: 3.5, output: 14, read: 0.875 },
    { slug: 'openai/gpt-4.1-mini', input: 0.7, output: 2.8, read: 0.175 },
    { slug: 'openai/o3', input: 3.5, output: 14, read: 0.875 },
    { slug: 'openai/o4-mini', input: 2, output: 8, read: 0.5 },
  ])("$slug's priority processing (speed: fast) at OpenAI's published rates, no long-context tier", ({ slug, input, output, read }) => {
    const fast = endpointOf(slug, 'openai').fast?.pricing;
    expect(fast).toMatchObject({ input, output, cache_read: read });
    expect(fast?.long_context ?? null).toBeNull();
  });
});

// Anthropic's pricing page (fast mode pricing, its 2026-09-26 copy): Opus 5.5 fast at $8/$40 across the whole
// context window with the caching multipliers on top; Opus 4.6 takes `speed: fast` but runs and bills it standard.
describe("Anthropic's fast mode", () => {
  it('prices Claude Opus 5.5 fast at $8/$40, cache reads 0.05x, writes 1.25x and 2x, the search fee kept, no long-context tier', () => {
    expect(endpointOf('anthropic/claude-opus-5.5', 'anthropic').fast?.pricing).toEqual({
      input: 8,
      output: 40,
      cache_read: 0.4,
      cache_write: 10,
      cache_write_1h: 16,
      web_search_request: 0.01,
    });
  });

  it.each([
    ['anthropic/claude-opus-4.6', 'anthropic'],
    ['anthropic/claude-opus-5.5', 'bedrock'],
    ['anthropic/claude-sonnet-5.5', 'anthropic'],
  ])('%s on %s has no fast variant', (slug, provider) => {
    expect(endpointOf(slug, provider).fast).toBeNull();
  });
});

// The Claude models served from Anthropic's API only (src/catalog/models/anthropic-api-only-models.ts): the
// overview pages' ids, 1M context and 128K output, the pricing page's token and cache prices, the $10 per
// 1,000 web searches, and no Bedrock endpoint (their Bedrock ids are on its Messages-API endpoint, not Converse).
describe("Claude models on Anthropic's API only", () => {
  it.each([
    { slug: 'anthropic/claude-fable-5.2', model: 'claude-fable-5-2', input: 8, output: 40, read: 0.2, write: 10, write1h: 16 },
    { slug: 'anthropic/claude-fable-5.1', model: 'claude-fable-5-1', input: 10, output: 50, read: 0.25, write: 12.5, write1h: 20 },
    { slug: 'anthropic/claude-fable-5', model: 'claude-fable-5', input: 10, output: 50, read: 1, write: 12.5, write1h: 20 },
    { slug: 'anthropic/claude-opus-5', model: 'claude-opus-5', input: 5, output: 25, read: 0.5, write: 6.25, write1h: 10 },
    { slug: 'anthropic/claude-opus-4.8', model: 'claude-opus-4-8', input: 5, output: 25, read: 0.5, write: 6.25, write1h: 10 },
    { slug: 'anthropic/claude-opus-4.7', model: 'claude-opus-4-7', input: 5, output: 25, read: 0.5, write: 6.25, write1h: 10 },
    { slug: 'anthropic/claude-sonnet-5', model: 'claude-sonnet-5', input: 2, output: 10, read: 0.2, write: 2.5, write1h: 4 },
    { slug: 'anthropic/claude-sonnet-4.6', model: 'claude-sonnet-4-6', input: 3, output: 15, read: 0.3, write: 3.75, write1h: 6 },
  ])('$slug: $model, 1M context, 128K output, $input/$output, read $read, writes $write and $write1h', ({ slug, model, input, output, read, write, write1h }) => {
    const found = catalog.getModel(slug);
    expect(found?.contextLength).toBe(1_000_000);
    expect(found?.endpoints.map((endpoint) => endpoint.provider.slug)).toEqual(['anthropic']);
    const endpoint = endpointOf(slug, 'anthropic');
    expect([endpoint.upstreamModel, endpoint.maxOutputTokens]).toEqual([model, 128_000]);
    const { pricing } = endpoint;
    expect([pricing.input, pricing.output, pricing.web_search_request]).toEqual([input, output, 0.01]);
    expect(pricing.cache_read).toBeCloseTo(read, 12);
    expect(pricing.cache_write).toBeCloseTo(write, 12);
    expect(pricing.cache_write_1h).toBeCloseTo(write1h, 12);
    expect(pricing.long_context ?? null).toBeNull();
  });

  it.each([
    { slug: 'anthropic/claude-fable-5.2', input: 16, output: 80, read: 0.4, write: 20, write1h: 32 },
    { slug: 'anthropic/claude-opus-5', input: 10, output: 50, read: 1, write: 12.5, write1h: 20 },
  ])('$slug has fast mode at $input/$output, the caching multipliers on top', ({ slug, input, output, read, write, write1h }) => {
    const fast = endpointOf(slug, 'anthropic').fast?.pricing;
    expect(fast).toMatchObject({ input, output, web_search_request: 0.01 });
    expect(fast?.cache_read).toBeCloseTo(read, 12);
    expect(fast?.cache_write).toBeCloseTo(write, 12);
    expect(fast?.cache_write_1h).toBeCloseTo(write1h, 12);
  });

  it.each(['anthropic/claude-fable-5.1', 'anthropic/claude-fable-5', 'anthropic/claude-opus-4.8', 'anthropic/claude-opus-4.7', 'anthropic/claude-sonnet-5', 'anthropic/claude-sonnet-4.6'])(
    '%s has no fast variant',
    (slug) => {
      expect(endpointOf(slug, 'anthropic').fast).toBeNull();
    },
  );
});
