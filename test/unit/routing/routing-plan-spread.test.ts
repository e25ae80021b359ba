import { describe, expect, it } from 'vitest';
import { planAttempts } from '#src/routing/routing-plan.ts';
import { priceWeightedOrder, spreadWeight, type EndpointGroup } from '#src/routing/endpoint-sort.ts';
import type { StickyPin } from '#src/routing/plan-types.ts';
import { credential, endpoint, model, planInput, request, sequence, summarize } from '#test/unit/routing/plan-fixtures.ts';

function group(provider: string, price: number, catalogIndex: number): EndpointGroup {
  return {
    model: 'x/m',
    modelIndex: 0,
    catalogIndex,
    endpoint: endpoint('x/m', provider, { pricing: { input: price / 2, output: price / 2 } }),
    fast: false,
    credentials: [{ kind: 'shared' }],
  };
}

// A small seeded generator (mulberry32) for the distribution test.
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

describe('price-weighted spread', () => {
  const cheap = group('cheap', 1, 0);
  const dear = group('dear', 2, 1);

  it('weighs an endpoint by the inverse square of its price', () => {
    expect(spreadWeight(cheap)).toBe(1);
    expect(spreadWeight(dear)).toBe(0.25);
    expect(spreadWeight(group('free', 0, 2))).toBe(10_000);
  });

  it.each<[number, string[]]>([
    [0, ['cheap', 'dear']],
    [0.79, ['cheap', 'dear']],
    [0.81, ['dear', 'cheap']],
    [0.999, ['dear', 'cheap']],
  ])('a draw of %s gives %j', (draw, expected) => {
    expect(priceWeightedOrder([dear, cheap], sequence(draw)).map((entry) => entry.endpoint.provider)).toEqual(expected);
  });

  it('puts an endpoint at half the price first about four times as often', () => {
    const random = seeded(42);
    let cheapFirst = 0;
    for (let round = 0; round < 10_000; round += 1) {
      if (priceWeightedOrder([cheap, dear], random)[0] === cheap) cheapFirst += 1;
    }
    expect(cheapFirst / 10_000).toBeGreaterThan(0.77);
    expect(cheapFirst / 10_000).toBeLessThan(0.83);
  });

  it('spreads each model on its own and draws once per choice', () => {
    const catalog = [
      model('a/one', [['p1', { pricing: { input: 1, output: 1 } }], ['p2', { pricing: { input: 1, output: 1 } }]]),
      model('b/two', [['p3', { pricing: { input: 1, output: 1 } }], ['p4', { pricing: { input: 1, output: 1 } }]]),
    ];
    const input = planInput({ request: request({ model: 'a/one', fallbacks: [{ model: 'b/two' }] }), random: sequence(0.9, 0.1) }, catalog);
    expect(summarize(planAttempts(input).attempts)).toEqual(['a/one@p2', 'a/one@p1', 'b/two@p3', 'b/two@p4']);
  });

  it('puts endpoints leading with a BYOK key before shared ones, spreading each half', () => {
    const catalog = [model('a/one', [['p1', {}], ['p2', {}], ['p3', {}]])];
    const input = planInput({ request: request({ model: 'a/one' }), credentials: [credential('k', 'p3')] }, catalog);
    expect(summarize(planAttempts(input).attempts)).toEqual(['a/one@p3#k', 'a/one@p3', 'a/one@p1', 'a/one@p2']);
  });
});

describe('sticky pin', () => {
  const credentials = [credential('k', 'bedrock')];
  const run = (stickyPin: StickyPin | null, extra: Parameters<typeof request>[0] = {}) => {
    const plan = planAttempts(planInput({ request: request({ fallbacks: [{ model: 'openai/gpt' }], ...extra }), credentials, stickyPin }));
    return { attempts: summarize(plan.attempts), strategy: plan.strategy };
  };

  it.each<[string, StickyPin | null, Parameters<typeof request>[0], string, string]>([
    ['no pin', null, {}, 'anthropic/claude@bedrock#k', 'price-weighted'],
    ['a shared pin moves to the front', { provider: 'vertex', credentialId: null }, {}, 'anthropic/claude@vertex', 'sticky'],
    ['a BYOK pin moves to the front', { provider: 'bedrock', credentialId: 'k' }, { provider: { sort: 'price' } }, 'anthropic/claude@bedrock#k', 'sticky'],
    ['a pin whose credential is gone keeps the provider on its next key', { provider: 'bedrock', credentialId: 'old' }, {}, 'anthropic/claude@bedrock#k', 'sticky'],
    ['a pin whose provider is filtered out is ignored', { provider: 'vertex', credentialId: null }, { provider: { ignore: ['vertex'] } }, 'anthropic/claude@bedrock#k', 'price-weighted'],
    ['a pin whose model differs is ignored', { provider: 'vertex', credentialId: null, model: 'anthropic/other' }, {}, 'anthropic/claude@bedrock#k', 'price-weighted'],
    ['provider.order wins over a pin', { provider: 'vertex', credentialId: null }, { provider: { order: ['anthropic'] } }, 'anthropic/claude@anthropic', 'order'],
  ])('%s', (_name, pin, extra, first, strategy) => {
    const result = run(pin, extra);
    expect(result.attempts[0]).toBe(first);
    expect(result.strategy).toBe(strategy);
  });

  it('moves only the pinned attempt and keeps every other attempt in order', () => {
    const { attempts } = run({ provider: 'vertex', credentialId: null });
    expect(attempts).toEqual([
      'anthropic/claude@vertex',
      'anthropic/claude@bedrock#k',
      'anthropic/claude@bedrock',
      'anthropic/claude@anthropic',
      'openai/gpt@openai',
      'openai/gpt@azure',
    ]);
  });

  it('a pin to a fallback model moves its attempt first among that model\'s, after the primary model', () => {
    const result = run({ provider: 'azure', credentialId: null, model: 'openai/gpt' });
    expect(result.attempts).toEqual([
      'anthropic/claude@bedrock#k',
      'anthropic/claude@bedrock',
      'anthropic/claude@anthropic',
      'anthropic/claude@vertex',
      'openai/gpt@azure',
      'openai/gpt@openai',
    ]);
    expect(result.strategy).toBe('sticky');
  });

  it('with partition none, a pinned attempt moves only ahead of its own model\'s', () => {
    const result = run({ provider: 'azure', credentialId: null, model: 'openai/gpt' }, { provider: { sort: { by: 'price', partition: 'none' } } });
    expect(result.attempts).toEqual([
      'openai/gpt@azure',
      'openai/gpt@openai',
      'anthropic/claude@anthropic',
      'anthropic/claude@bedrock#k',
      'anthropic/claude@bedrock',
      'anthropic/claude@vertex',
    ]);
  });
});
