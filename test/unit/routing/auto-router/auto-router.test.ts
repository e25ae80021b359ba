import { describe, expect, it } from 'vitest';
import { GatewayError } from '#src/errors.ts';
import type { AutoRouterPlugin } from '#src/api-types.ts';
import { AUTO_MODEL, autoRouterSettings, blendedPrice, chooseModel, costTierOf, type AutoRouterCandidate } from '#src/routing/auto-router/auto-router.ts';
import { request } from '#test/unit/routing/plan-fixtures.ts';

function candidate(slug: string, input: number, output: number, overrides: Partial<AutoRouterCandidate> = {}): AutoRouterCandidate {
  return { slug, pricing: { input, output }, capabilities: { tools: true, vision: true, pdf: true, thinking: true }, contextLength: 200_000, ...overrides };
}

// Blended prices: 0.2, 1.5, 2, 9, 20, 45.
const CANDIDATES = [
  candidate('meta/llama-small', 0.1, 0.3, { capabilities: { tools: false, vision: false, pdf: false, thinking: false }, contextLength: 8_000 }),
  candidate('google/flash', 0.5, 2.5),
  candidate('openai/mini', 1, 3),
  candidate('anthropic/sonnet', 3, 15),
  candidate('openai/gpt', 10, 30, { capabilities: { tools: true, vision: true, pdf: false, thinking: true } }),
  candidate('anthropic/opus', 15, 75),
];

const auto = (settings: Partial<AutoRouterPlugin> = {}) => ({ id: 'auto-router' as const, ...settings });
const hardRequest = request({
  model: AUTO_MODEL,
  thinking: { type: 'enabled', budget_tokens: 4_000 },
  tools: Array.from({ length: 5 }, (_unused, index) => ({ name: `tool${index}`, input_schema: {} })),
  messages: [{ role: 'user', content: 'Prove the algorithm is correct and analyze its complexity step by step:\n```\nfn main() {}\n```' }],
});

function choose(settings: Partial<AutoRouterPlugin>, body = request({ model: AUTO_MODEL }), extra: { pinnedModel?: string; isServable?: (slug: string) => boolean } = {}) {
  return chooseModel({ request: body, settings: auto(settings), candidates: CANDIDATES, ...extra });
}

function errorOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError) return `${error.status} ${error.publicMessage}`;
    throw error;
  }
  return 'no error';
}

describe('autoRouterSettings', () => {
  it.each<[string, Parameters<typeof request>[0], AutoRouterPlugin | null]>([
    ['a concrete model without the plugin', {}, null],
    ['switchboard/auto without the plugin', { model: AUTO_MODEL }, { id: 'auto-router' }],
    ['switchboard/auto with settings', { model: AUTO_MODEL, plugins: [{ id: 'auto-router', cost_tier: 'economy' }] }, { id: 'auto-router', cost_tier: 'economy' }],
    ['switchboard/auto with the plugin disabled still routes', { model: AUTO_MODEL, plugins: [{ id: 'auto-router', enabled: false }] }, { id: 'auto-router', enabled: false }],
    ['the plugin, enabled by default', { plugins: [{ id: 'auto-router' }] }, { id: 'auto-router' }],
    ['the plugin enabled', { plugins: [{ id: 'auto-router', enabled: true }] }, { id: 'auto-router', enabled: true }],
    ['the plugin disabled', { plugins: [{ id: 'auto-router', enabled: false }] }, null],
  ])('%s', (_name, body, expected) => {
    expect(autoRouterSettings(request(body))).toEqual(expected);
  });
});

describe('cost tiers', () => {
  it.each<[number, string]>([
    [0, 'economy'],
    [1.99, 'economy'],
    [2, 'standard'],
    [20, 'standard'],
    [20.01, 'premium'],
  ])('a blended price of %s is %s', (price, tier) => {
    expect(costTierOf(price)).toBe(tier);
  });

  it('blends input and output 1:1', () => {
    expect(blendedPrice({ input: 3, output: 15 })).toBe(9);
  });
});

describe('chooseModel', () => {
  it.each<[string, Partial<AutoRouterPlugin>, Parameters<typeof request>[0] | null, string]>([
    ['an easy prompt gets the cheapest model', {}, null, 'meta/llama-small'],
    ['a hard prompt gets the priciest capable model', {}, hardRequest, 'anthropic/opus'],
    ['economy keeps an easy prompt cheap', { cost_tier: 'economy' }, null, 'meta/llama-small'],
    ['economy caps a hard prompt', { cost_tier: 'economy' }, hardRequest, 'google/flash'],
    ['standard for an easy prompt', { cost_tier: 'standard' }, null, 'openai/mini'],
    ['standard for a hard prompt', { cost_tier: 'standard' }, hardRequest, 'openai/gpt'],
    ['premium', { cost_tier: 'premium' }, null, 'anthropic/opus'],
    ['allowed_models by vendor', { allowed_models: ['anthropic/*'] }, null, 'anthropic/sonnet'],
    ['allowed_models by slug', { allowed_models: ['openai/gpt', 'google/flash'] }, hardRequest, 'openai/gpt'],
    ['excluded_models', { excluded_models: ['meta/llama-small', 'google/flash'] }, null, 'openai/mini'],
    ['allowed and excluded together', { allowed_models: ['openai/*'], excluded_models: ['openai/mini'] }, null, 'openai/gpt'],
  ])('%s', (_name, settings, body, expected) => {
    const result = choose(settings, body === null ? request({ model: AUTO_MODEL }) : request(body));
    expect(result.model).toBe(expected);
  });

  it.each<[string, Parameters<typeof request>[0], string]>([
    ['tools', { tools: [{ name: 'a', input_schema: {} }] }, 'google/flash'],
    ['images', { messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://example.invalid/a.png' } }] }] }, 'google/flash'],
    ['a long prompt', { messages: [{ role: 'user', content: 'x'.repeat(40_000) }] }, 'google/flash'],
  ])('skips models that cannot serve %s', (_name, body, cheapestCapable) => {
    const economy = choose({ cost_tier: 'economy' }, request({ model: AUTO_MODEL, ...body }));
    expect(economy.model).toBe(cheapestCapable);
  });

  it('does not hold an unknown context length against a model', () => {
    const local = candidate('local/llama', 0, 0, { contextLength: null });
    const long = request({ model: AUTO_MODEL, messages: [{ role: 'user', content: 'x'.repeat(40_000) }] });
    const result = chooseModel({ request: long, settings: auto({ cost_tier: 'economy' }), candidates: [candidate('meta/small', 0, 0, { contextLength: 8_000 }), local] });
    expect(result.model).toBe('local/llama');
  });

  it('skips models without PDF support even at the top of the range', () => {
    const pdf = request({ model: AUTO_MODEL, thinking: { type: 'enabled', budget_tokens: 2_000 }, messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'url', url: 'https://example.invalid/a.pdf' } }] }] });
    expect(choose({ allowed_models: ['openai/*'] }, pdf).model).toBe('openai/mini');
  });

  it('never leaves the allowed set and the tier, whatever the prompt', () => {
    for (const body of [request({ model: AUTO_MODEL }), hardRequest]) {
      const chosen = choose({ allowed_models: ['anthropic/*', 'google/*'], cost_tier: 'standard' }, body).model;
      expect(chosen).toBe('anthropic/sonnet');
    }
  });

  it.each<[string, Partial<AutoRouterPlugin>, string | undefined, string]>([
    ['pin_model keeps the pinned model', { pin_model: true }, 'anthropic/sonnet', 'anthropic/sonnet'],
    ['without pin_model the pin is ignored', {}, 'anthropic/sonnet', 'meta/llama-small'],
    ['a pinned model no longer allowed is replaced', { pin_model: true, allowed_models: ['openai/*'] }, 'anthropic/sonnet', 'openai/mini'],
    ['no pin yet', { pin_model: true }, undefined, 'meta/llama-small'],
  ])('%s', (_name, settings, pinnedModel, expected) => {
    const result = choose(settings, request({ model: AUTO_MODEL }), pinnedModel === undefined ? {} : { pinnedModel });
    expect(result.model).toBe(expected);
    expect(result.report).toMatchObject({ model: expected, pinned: settings.pin_model === true && pinnedModel === expected });
  });

  it('honours the caller\'s servability check', () => {
    expect(choose({}, request({ model: AUTO_MODEL }), { isServable: (slug) => slug.startsWith('anthropic/') }).model).toBe('anthropic/sonnet');
  });

  it('explains its choice', () => {
    const result = choose({ cost_tier: 'standard' }, hardRequest);
    expect(result.reason).toBe(
      'auto-router: hard prompt (code, reasoning words: prove, algorithm, analyze, complexity, step by step, thinking, 5 tools), difficulty 0.88, chose openai/gpt among 3 candidates in cost_tier standard',
    );
    expect(result.difficulty).toBe(7 / 8);
    expect(result.report).toEqual({
      id: 'auto-router',
      model: 'openai/gpt',
      difficulty: 7 / 8,
      difficulty_label: 'hard',
      signals: ['code', 'reasoning words: prove, algorithm, analyze, complexity, step by step', 'thinking', '5 tools'],
      candidates: 3,
      cost_tier: 'standard',
      pinned: false,
    });
  });

  it.each<[string, Partial<AutoRouterPlugin>, Parameters<typeof request>[0], string]>([
    ['allowed_models', { allowed_models: ['mistral/*'] }, {}, 'matches allowed_models mistral/*'],
    ['excluded_models', { allowed_models: ['anthropic/*'], excluded_models: ['anthropic/*'] }, {}, 'is left after excluded_models'],
    ['cost_tier', { allowed_models: ['anthropic/opus'], cost_tier: 'economy' }, {}, 'in cost_tier economy'],
    ['a capability', { allowed_models: ['meta/*'] }, { tools: [{ name: 'a', input_schema: {} }] }, 'supports tools'],
  ])('answers 400 when %s leaves no model', (_name, settings, body, why) => {
    expect(errorOf(() => choose(settings, request({ model: AUTO_MODEL, ...body })))).toBe(`400 Invalid request parameters: auto-router: no candidate model ${why}`);
  });

  it('never chooses switchboard/auto itself', () => {
    const result = chooseModel({ request: request({ model: AUTO_MODEL }), settings: auto(), candidates: [candidate(AUTO_MODEL, 0, 0), candidate('a/b', 1, 1)] });
    expect(result.model).toBe('a/b');
  });
});
