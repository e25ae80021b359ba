import { describe, expect, it } from 'vitest';
import { loadCatalog } from '#src/catalog/index.ts';
import type { DataRegion } from '#src/data-region.ts';
import { EndpointLocationError } from '#src/errors.ts';
import { servedPricing, toAttempt } from '#src/routing/attempt.ts';
import { createCatalogPlanView, type CatalogPlanEndpoint } from '#src/routing/catalog-plan-view.ts';
import type { AttemptCredential, PlannedAttempt } from '#src/routing/plan-types.ts';

const catalog = loadCatalog({ env: {} });
const view = createCatalogPlanView(catalog);

function planned(model: string, provider: string, options: { credential?: AttemptCredential; fast?: boolean } = {}): PlannedAttempt<CatalogPlanEndpoint> {
  const endpoint = view.model(model)?.endpoints.find((candidate) => candidate.provider === provider);
  if (!endpoint) throw new Error(`no endpoint ${model}@${provider}`);
  return { model, endpoint, credential: options.credential ?? { kind: 'shared' }, fast: options.fast ?? false, availableIndex: 3 };
}

const BYOK: AttemptCredential = { kind: 'byok', credentialId: 'cred-1' };

describe('toAttempt', () => {
  it.each<[string, string, DataRegion, AttemptCredential, { baseUrl: string; upstreamModel: string }]>([
    ['openai/gpt-5', 'openai', 'global', { kind: 'shared' }, { baseUrl: 'https://api.openai.com/v1', upstreamModel: 'gpt-5' }],
    ['openai/gpt-5', 'openai', 'europe', { kind: 'shared' }, { baseUrl: 'https://eu.api.openai.com/v1', upstreamModel: 'gpt-5' }],
    ['anthropic/claude-sonnet-4.5', 'bedrock', 'europe', { kind: 'shared' }, { baseUrl: 'https://bedrock-runtime.eu-central-1.amazonaws.com', upstreamModel: 'eu.anthropic.claude-sonnet-4-5-20250929-v1:0' }],
    // The endpoint itself has no European host; a credential declaring europe goes to the provider's base URL.
    ['anthropic/claude-sonnet-4.5', 'anthropic', 'europe', BYOK, { baseUrl: 'https://api.anthropic.com', upstreamModel: 'claude-sonnet-4-5' }],
  ])('%s on %s for %s (%j) goes to the region\'s host', (model, provider, region, credential, location) => {
    expect(toAttempt(planned(model, provider, { credential }), region)).toMatchObject(location);
  });

  it('carries the provider record itself, the credential reference and the plan position, as plain data', () => {
    const attempt = toAttempt(planned('openai/gpt-5', 'openai', { credential: BYOK }), 'global');
    expect(attempt.provider).toBe(catalog.getProvider('openai'));
    expect(attempt).toMatchObject({ model: 'openai/gpt-5', credential: BYOK, availableIndex: 3, fast: false });
    expect(JSON.stringify(attempt)).not.toMatch(/sk-|api_key/);
  });

  it('prices the fast variant when the attempt runs fast, the standard one otherwise', () => {
    const endpoint = catalog.getEndpoint('anthropic/claude-opus-5.5@anthropic');
    expect(endpoint?.fast).not.toBeNull();
    const fast = toAttempt(planned('anthropic/claude-opus-5.5', 'anthropic', { fast: true }), 'global');
    expect(fast.pricing).toBe(endpoint?.fast?.pricing);
    expect(fast.standardPricing).toBe(endpoint?.pricing);
    const standard = toAttempt(planned('anthropic/claude-opus-5.5', 'anthropic'), 'global');
    expect(standard.pricing).toBe(endpoint?.pricing);
    expect(standard.standardPricing).toBe(endpoint?.pricing);
  });

  // The upstream's `usage.speed` decides: only a fast attempt it says it served at standard speed pays less.
  it.each([
    ['fast, served fast', true, 'fast', 'fast'],
    ['fast, served at standard speed', true, 'standard', 'standard'],
    ['fast, no speed reported (a translated vendor)', true, undefined, 'fast'],
    ['fast, speed null', true, null, 'fast'],
    ['fast, an unknown speed', true, 'turbo', 'fast'],
    ['standard, served standard', false, 'standard', 'standard'],
    ['standard, an upstream claiming fast', false, 'fast', 'standard'],
  ] as const)('servedPricing: %s', (_case, fast, speed, expected) => {
    const prices = { fast: { input: 8, output: 40, cache_read: 0.4, cache_write: 10 }, standard: { input: 4, output: 20, cache_read: 0.2, cache_write: 5 } };
    const attempt = { fast, pricing: fast ? prices.fast : prices.standard, standardPricing: prices.standard };
    expect(servedPricing(attempt, speed)).toBe(prices[expected]);
  });

  it('prices a regional model id at its regional prices (Bedrock geo profiles), the global profile at the list price', () => {
    const endpoint = catalog.getEndpoint('anthropic/claude-sonnet-4.5@bedrock');
    expect(toAttempt(planned('anthropic/claude-sonnet-4.5', 'bedrock'), 'global').pricing).toBe(endpoint?.pricing);
    for (const region of ['us', 'europe'] as const) {
      const attempt = toAttempt(planned('anthropic/claude-sonnet-4.5', 'bedrock'), region);
      expect(attempt.pricing, region).toBe(endpoint?.regionalPricing[region]);
      expect(attempt.pricing.input, region).toBeCloseTo(3.3, 12);
      // What usage reported for that id prices (an iteration's model) is the regional price too.
      expect(attempt.modelPricing.get(attempt.upstreamModel), region).toBe(endpoint?.regionalPricing[region]);
    }
    // An endpoint without a premium prices every region alike.
    const sonnet4 = catalog.getEndpoint('anthropic/claude-sonnet-4@bedrock');
    expect(toAttempt(planned('anthropic/claude-sonnet-4', 'bedrock'), 'us').pricing).toBe(sonnet4?.pricing);
  });

  it('refuses a shared key in a region the endpoint cannot serve (the planner filters those out first)', () => {
    expect(() => toAttempt(planned('anthropic/claude-sonnet-4.5', 'anthropic'), 'europe')).toThrow(EndpointLocationError);
  });
});
