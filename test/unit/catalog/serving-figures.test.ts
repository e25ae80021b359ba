/**
 * A model's figures from the endpoints still serving it (`GET /models`' `context_length`, `max_tokens` and `features`,
 * the auto-router's price and context), as pure functions of the endpoints and the time asked about.
 */
import { describe, expect, it } from 'vitest';
import type { CatalogEndpoint } from '#src/catalog/catalog-types.ts';
import { perLifecycleEpoch } from '#src/catalog/lifecycle.ts';
import { cheapestPricingAt, modelFeaturesAt, modelLimitsAt, servingCapabilitiesAt } from '#src/catalog/serving-figures.ts';

type Endpoint = Pick<CatalogEndpoint, 'contextLength' | 'maxOutputTokens' | 'pricing' | 'retiresAt'>;

const RETIRES = '2026-11-30T00:00:00Z';
const BEFORE = Date.parse('2026-11-29T23:59:59Z');
const AFTER = Date.parse(RETIRES);

function endpoint(input: number, output: number, contextLength: number | null, maxOutputTokens: number | null, retiresAt: string | null = null): Endpoint {
  return { pricing: { input, output, cache_read: null, cache_write: null }, contextLength, maxOutputTokens, retiresAt };
}

const retiring = endpoint(0.5, 1, 1_000_000, 128_000, RETIRES);
const lasting = endpoint(3, 15, 200_000, 64_000);

describe('modelLimitsAt', () => {
  it.each<[string, Endpoint[], number, { contextLength: number | null; maxOutputTokens: number | null }]>([
    ['the largest of the serving endpoints', [lasting, retiring], BEFORE, { contextLength: 1_000_000, maxOutputTokens: 128_000 }],
    ['a retired endpoint counts no more', [lasting, retiring], AFTER, { contextLength: 200_000, maxOutputTokens: 64_000 }],
    ['every endpoint retired: the figures they had', [retiring], AFTER, { contextLength: 1_000_000, maxOutputTokens: 128_000 }],
    ['an unknown window may be the largest', [lasting, endpoint(1, 2, null, null)], BEFORE, { contextLength: null, maxOutputTokens: 64_000 }],
    ['a retired unknown window is not', [lasting, endpoint(1, 2, null, null, RETIRES)], AFTER, { contextLength: 200_000, maxOutputTokens: 64_000 }],
    ['no output limit given', [endpoint(1, 2, 32_000, null)], BEFORE, { contextLength: 32_000, maxOutputTokens: null }],
  ])('%s', (_name, endpoints, now, expected) => {
    expect(modelLimitsAt({ endpoints: endpoints as CatalogEndpoint[] }, now)).toEqual(expected);
  });
});

describe('cheapestPricingAt', () => {
  it.each<[string, Endpoint[], number, { input: number; output: number } | null]>([
    ['the cheapest serving endpoint, input and output summed', [lasting, retiring], BEFORE, { input: 0.5, output: 1 }],
    ['a retired endpoint is not a price anyone pays', [lasting, retiring], AFTER, { input: 3, output: 15 }],
    ['nothing serving: no price', [retiring], AFTER, null],
  ])('%s', (_name, endpoints, now, expected) => {
    expect(cheapestPricingAt({ endpoints: endpoints as CatalogEndpoint[] }, now)).toEqual(expected);
  });
});

describe('servingCapabilitiesAt', () => {
  type Able = Pick<CatalogEndpoint, 'capabilities' | 'retiresAt'>;
  const ALL = { tools: true, vision: true, pdf: true, thinking: true, caching: true, structured_output: true };
  const able = (lacks: Partial<typeof ALL>, retiresAt: string | null = null): Able => ({ capabilities: { ...ALL, ...lacks }, retiresAt });
  const seeing = able({}, RETIRES);
  const blind = able({ vision: false, pdf: false });

  it.each<[string, Able[], number, typeof ALL | null]>([
    ['what any serving endpoint can do', [blind, seeing], BEFORE, ALL],
    ['a retired endpoint’s capabilities count no more', [blind, seeing], AFTER, { ...ALL, vision: false, pdf: false }],
    ['each capability from whichever endpoint has it', [able({ tools: false }), able({ thinking: false })], AFTER, ALL],
    ['what no endpoint can do', [able({ thinking: false }), able({ thinking: false, caching: false })], BEFORE, { ...ALL, thinking: false }],
    ['nothing serving: no capabilities', [seeing], AFTER, null],
  ])('%s', (_name, endpoints, now, expected) => {
    expect(servingCapabilitiesAt({ endpoints: endpoints as CatalogEndpoint[] }, now)).toEqual(expected);
  });

  describe('modelFeaturesAt', () => {
    const OWN = { ...ALL, caching: false };
    it.each<[string, Able[], number, typeof ALL]>([
      ['what any serving endpoint can do', [blind, seeing], BEFORE, ALL],
      ['a retired endpoint’s features count no more', [blind, seeing], AFTER, { ...ALL, vision: false, pdf: false }],
      ['every endpoint retired: the features they had, not the model’s', [able({ vision: false, pdf: false }, RETIRES)], AFTER, { ...ALL, vision: false, pdf: false }],
      ['every endpoint retired, each capability from whichever had it', [seeing, able({ tools: false }, RETIRES)], AFTER, ALL],
      ['no endpoints: the model’s own', [], AFTER, OWN],
    ])('%s', (_name, endpoints, now, expected) => {
      expect(modelFeaturesAt({ endpoints: endpoints as CatalogEndpoint[], capabilities: OWN }, now)).toEqual(expected);
    });
  });
});

describe('perLifecycleEpoch', () => {
  it('builds once per stretch between retirements and shares the result', () => {
    let builds = 0;
    const at = perLifecycleEpoch([{ retiresAt: RETIRES }], (now) => ({ builds: ++builds, now }));
    const first = at(BEFORE - 1000);
    expect(at(BEFORE)).toBe(first);
    const second = at(AFTER);
    expect(second).not.toBe(first);
    expect(at(AFTER + 86_400_000)).toBe(second);
    expect(builds).toBe(2);
  });
});
