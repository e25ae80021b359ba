import { describe, expect, it } from 'vitest';
import { GatewayError } from '#src/errors.ts';
import type { ProviderPreferences } from '#src/api-types.ts';
import { planAttempts } from '#src/routing/routing-plan.ts';
import type { EndpointStats, PlanModel } from '#src/routing/plan-types.ts';
import { model, planInput, request, summarize } from '#test/unit/routing/plan-fixtures.ts';

function plan(provider: ProviderPreferences, extra: Parameters<typeof request>[0] = {}, catalog?: PlanModel[]): string[] {
  return summarize(planAttempts(planInput({ request: request({ provider, ...extra }) }, catalog)).attempts);
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

describe('provider.only, ignore, order and allow_fallbacks', () => {
  it.each<[string, ProviderPreferences, string[]]>([
    ['only keeps the named providers', { only: ['vertex', 'bedrock'] }, ['anthropic/claude@bedrock', 'anthropic/claude@vertex']],
    ['only matches display names, case-insensitively', { only: ['VERTEX'] }, ['anthropic/claude@vertex']],
    ['ignore drops the named providers', { ignore: ['anthropic'] }, ['anthropic/claude@bedrock', 'anthropic/claude@vertex']],
    ['order puts the named providers first, in order', { order: ['vertex', 'bedrock'] }, ['anthropic/claude@vertex', 'anthropic/claude@bedrock', 'anthropic/claude@anthropic']],
    ['order ignores unknown providers', { order: ['nobody', 'vertex'] }, ['anthropic/claude@vertex', 'anthropic/claude@anthropic', 'anthropic/claude@bedrock']],
    ['allow_fallbacks false stops after the order', { order: ['vertex', 'bedrock'], allow_fallbacks: false }, ['anthropic/claude@vertex', 'anthropic/claude@bedrock']],
    ['allow_fallbacks false with only keeps every allowed provider', { only: ['vertex', 'bedrock'], allow_fallbacks: false }, ['anthropic/claude@bedrock', 'anthropic/claude@vertex']],
    ['allow_fallbacks false alone keeps the first provider chosen', { allow_fallbacks: false }, ['anthropic/claude@anthropic']],
    ['allow_fallbacks false after a sort keeps the best', { allow_fallbacks: false, sort: 'price' }, ['anthropic/claude@anthropic']],
    ['order and ignore together', { order: ['bedrock'], ignore: ['bedrock'] }, ['anthropic/claude@anthropic', 'anthropic/claude@vertex']],
    ['only and order together', { only: ['anthropic', 'vertex'], order: ['vertex'] }, ['anthropic/claude@vertex', 'anthropic/claude@anthropic']],
  ])('%s', (_name, provider, expected) => {
    expect(plan(provider)).toEqual(expected);
  });

  it('order then sort: the named providers first, the rest by price', () => {
    const result = planAttempts(planInput({ request: request({ provider: { order: ['vertex'], sort: 'price' } }) }));
    expect(summarize(result.attempts)).toEqual(['anthropic/claude@vertex', 'anthropic/claude@anthropic', 'anthropic/claude@bedrock']);
    expect(result.strategy).toBe('order+sort:price');
  });

  it('allow_fallbacks false does not drop fallback models', () => {
    expect(plan({ order: ['bedrock', 'openai'], allow_fallbacks: false }, { fallbacks: [{ model: 'openai/gpt' }] })).toEqual([
      'anthropic/claude@bedrock',
      'openai/gpt@openai',
    ]);
  });

  it.each<[string, ProviderPreferences, string]>([
    ['only', { only: ['nobody'] }, 'provider.only excludes every endpoint of anthropic/claude'],
    ['ignore', { ignore: ['anthropic', 'bedrock', 'vertex'] }, 'provider.ignore excludes every endpoint of anthropic/claude'],
    ['allow_fallbacks with an order nobody serves', { order: ['nobody'], allow_fallbacks: false }, 'provider.allow_fallbacks=false and no provider in provider.order serves anthropic/claude'],
  ])('%s removing every endpoint answers 404 saying so', (_name, provider, reason) => {
    expect(errorOf(() => plan(provider))).toBe(`404 No endpoint can serve this request: ${reason}`);
  });
});

describe('hard filters: require_parameters, data_collection, zdr, max_price', () => {
  const catalog = [
    model('x/model', [
      ['plain', { supportedParameters: ['temperature'], dataPolicy: { zdr: false, dataCollection: 'allow' }, pricing: { input: 1, output: 4 } }],
      ['tooled', { supportedParameters: ['tools', 'temperature'], dataPolicy: { zdr: false, dataCollection: 'deny' }, pricing: { input: 2, output: 8 } }],
      ['private', { supportedParameters: ['tools', 'thinking'], dataPolicy: { zdr: true, dataCollection: 'deny' }, pricing: { input: 5, output: 20 } }],
    ]),
  ];
  const tools = { tools: [{ name: 'lookup', input_schema: {} }] };

  it.each<[string, ProviderPreferences, Parameters<typeof request>[0], string[]]>([
    ['no preference keeps every endpoint', {}, tools, ['x/model@plain', 'x/model@tooled', 'x/model@private']],
    ['require_parameters with tools', { require_parameters: true }, tools, ['x/model@tooled', 'x/model@private']],
    ['require_parameters with tools and temperature', { require_parameters: true }, { ...tools, temperature: 0.5 }, ['x/model@tooled']],
    ['require_parameters with nothing special used', { require_parameters: true }, {}, ['x/model@plain', 'x/model@tooled', 'x/model@private']],
    ['data_collection deny', { data_collection: 'deny' }, {}, ['x/model@tooled', 'x/model@private']],
    ['data_collection allow', { data_collection: 'allow' }, {}, ['x/model@plain', 'x/model@tooled', 'x/model@private']],
    ['zdr', { zdr: true }, {}, ['x/model@private']],
    ['max_price prompt', { max_price: { prompt: 2 } }, {}, ['x/model@plain', 'x/model@tooled']],
    ['max_price completion', { max_price: { completion: 4 } }, {}, ['x/model@plain']],
    ['max_price both', { max_price: { prompt: 5, completion: 19 } }, {}, ['x/model@plain', 'x/model@tooled']],
    ['data_collection deny and max_price', { data_collection: 'deny', max_price: { prompt: 3 } }, {}, ['x/model@tooled']],
    ['require_parameters and zdr', { require_parameters: true, zdr: true }, tools, ['x/model@private']],
  ])('%s', (_name, provider, extra, expected) => {
    expect(plan(provider, { model: 'x/model', ...extra }, catalog)).toEqual(expected);
  });

  it.each<[string, ProviderPreferences, Parameters<typeof request>[0], string]>([
    ['require_parameters', { require_parameters: true }, { ...tools, top_k: 3 }, 'no endpoint of x/model supports every parameter the request uses (tools, top_k)'],
    ['data_collection', { data_collection: 'deny', only: ['plain'] }, {}, 'no endpoint of x/model allows data_collection=deny'],
    ['zdr', { zdr: true, ignore: ['private'] }, {}, 'no endpoint of x/model offers zero data retention (zdr=true)'],
    ['max_price', { max_price: { prompt: 0.5, completion: 1 } }, {}, 'no endpoint of x/model is within provider.max_price (prompt $0.5/M, completion $1/M)'],
  ])('%s removing the last endpoint answers 404 naming it', (_name, provider, extra, reason) => {
    expect(errorOf(() => plan(provider, { model: 'x/model', ...extra }, catalog))).toBe(`404 No endpoint can serve this request: ${reason}`);
  });
});

describe('sort and partition', () => {
  const catalog = [
    model('a/one', [['slow', { pricing: { input: 1, output: 1 } }], ['fast', { pricing: { input: 3, output: 3 } }], ['unmeasured', { pricing: { input: 0.5, output: 0.5 } }]]),
    model('b/two', [['cheap', { pricing: { input: 0.1, output: 0.1 } }], ['quick', { pricing: { input: 9, output: 9 } }]]),
  ];
  const stats = new Map<string, EndpointStats>([
    ['a/one|slow', { throughputTokensPerSecond: 20, latencyMs: 900 }],
    ['a/one|fast', { throughputTokensPerSecond: 200, latencyMs: 150 }],
    ['b/two|cheap', { throughputTokensPerSecond: 50, latencyMs: 400 }],
    ['b/two|quick', { throughputTokensPerSecond: 500, latencyMs: 100 }],
  ]);
  const run = (extra: Parameters<typeof request>[0]) =>
    planAttempts(planInput({ request: request({ model: 'a/one', fallbacks: [{ model: 'b/two' }], ...extra }), stats }, catalog));

  it.each<[string, Parameters<typeof request>[0], string, string[]]>([
    ['price within each model', { provider: { sort: 'price' } }, 'sort:price', ['a/one@unmeasured', 'a/one@slow', 'a/one@fast', 'b/two@cheap', 'b/two@quick']],
    ['throughput within each model, unknown last', { provider: { sort: 'throughput' } }, 'sort:throughput', ['a/one@fast', 'a/one@slow', 'a/one@unmeasured', 'b/two@quick', 'b/two@cheap']],
    ['latency within each model, unknown last', { provider: { sort: { by: 'latency' } } }, 'sort:latency', ['a/one@fast', 'a/one@slow', 'a/one@unmeasured', 'b/two@quick', 'b/two@cheap']],
    ['price with partition none', { provider: { sort: { by: 'price', partition: 'none' } } }, 'sort:price', ['b/two@cheap', 'a/one@unmeasured', 'a/one@slow', 'a/one@fast', 'b/two@quick']],
    ['throughput with partition none', { provider: { sort: { by: 'throughput', partition: 'none' } } }, 'sort:throughput', ['b/two@quick', 'a/one@fast', 'b/two@cheap', 'a/one@slow', 'a/one@unmeasured']],
    ['latency with partition none', { provider: { sort: { by: 'latency', partition: 'none' } } }, 'sort:latency', ['b/two@quick', 'a/one@fast', 'b/two@cheap', 'a/one@slow', 'a/one@unmeasured']],
    ['route sort means partition none', { route: 'sort', provider: { sort: 'price' } }, 'sort:price', ['b/two@cheap', 'a/one@unmeasured', 'a/one@slow', 'a/one@fast', 'b/two@quick']],
    ['route fallback means partition model', { route: 'fallback', provider: { sort: 'price' } }, 'sort:price', ['a/one@unmeasured', 'a/one@slow', 'a/one@fast', 'b/two@cheap', 'b/two@quick']],
    ['provider.sort.partition wins over route', { route: 'sort', provider: { sort: { by: 'price', partition: 'model' } } }, 'sort:price', ['a/one@unmeasured', 'a/one@slow', 'a/one@fast', 'b/two@cheap', 'b/two@quick']],
    ['order with partition none puts named providers of every model first', { provider: { order: ['quick'], sort: { by: 'price', partition: 'none' } } }, 'order+sort:price', ['b/two@quick', 'b/two@cheap', 'a/one@unmeasured', 'a/one@slow', 'a/one@fast']],
  ])('%s', (_name, extra, strategy, expected) => {
    const result = run(extra);
    expect(summarize(result.attempts)).toEqual(expected);
    expect(result.strategy).toBe(strategy);
  });

  it('sorts every endpoint last when nothing was measured, in catalog order', () => {
    const result = planAttempts(planInput({ request: request({ model: 'a/one', provider: { sort: 'latency' } }) }, catalog));
    expect(summarize(result.attempts)).toEqual(['a/one@slow', 'a/one@fast', 'a/one@unmeasured']);
  });
});

describe('speed: fast', () => {
  const catalog = [
    model('a/one', [
      ['standard', { pricing: { input: 1, output: 1 } }],
      ['turbo', { pricing: { input: 1, output: 1 }, fast: { pricing: { input: 6, output: 6 } } }],
      ['rocket', { pricing: { input: 2, output: 2 }, fast: { upstreamModel: 'one-fast', pricing: { input: 4, output: 4 } } }],
    ]),
    model('b/two', [['standard', {}]]),
  ];

  it.each<[string, Parameters<typeof request>[0], string[]]>([
    ['standard speed uses every endpoint', { speed: 'standard' }, ['a/one@standard', 'a/one@turbo', 'a/one@rocket']],
    ['fast uses only endpoints with a fast variant', { speed: 'fast' }, ['a/one@turbo+fast', 'a/one@rocket+fast']],
    ['fast prices drive the sort', { speed: 'fast', provider: { sort: 'price' } }, ['a/one@rocket+fast', 'a/one@turbo+fast']],
    ['fast prices meet max_price', { speed: 'fast', provider: { max_price: { prompt: 5 } } }, ['a/one@rocket+fast']],
    ['a model without fast runs at standard speed', { speed: 'fast', model: 'b/two' }, ['b/two@standard']],
  ])('%s', (_name, extra, expected) => {
    expect(summarize(planAttempts(planInput({ request: request({ model: 'a/one', ...extra }) }, catalog)).attempts)).toEqual(expected);
  });

  it('warns when a model has no fast variant', () => {
    const result = planAttempts(planInput({ request: request({ model: 'b/two', speed: 'fast' }) }, catalog));
    expect(result.warnings).toEqual(['no endpoint of b/two offers speed=fast; using standard speed']);
  });
});
