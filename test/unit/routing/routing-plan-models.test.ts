import { describe, expect, it } from 'vitest';
import { GatewayError } from '#src/errors.ts';
import { planAttempts, requestedModels } from '#src/routing/routing-plan.ts';
import type { PlanModel } from '#src/routing/plan-types.ts';
import { CATALOG, credential, planInput, request, summarize } from '#test/unit/routing/plan-fixtures.ts';

function failure(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}

describe('requestedModels', () => {
  it.each([
    ['the model alone', request(), ['anthropic/claude']],
    ['then fallbacks in order', request({ fallbacks: [{ model: 'openai/gpt' }, { model: 'meta/llama' }] }), ['anthropic/claude', 'openai/gpt', 'meta/llama']],
    ['then models in order', request({ models: ['meta/llama', 'openai/gpt'] }), ['anthropic/claude', 'meta/llama', 'openai/gpt']],
    ['without duplicates', request({ models: ['anthropic/claude', 'openai/gpt', 'openai/gpt'] }), ['anthropic/claude', 'openai/gpt']],
  ])('%s', (_name, body, expected) => {
    expect(requestedModels(body)).toEqual(expected);
  });

  it('rejects fallbacks combined with models with a 400', () => {
    const error = failure(() => requestedModels(request({ fallbacks: [{ model: 'openai/gpt' }], models: ['meta/llama'] })));
    expect(error.status).toBe(400);
    expect(error.publicMessage).toContain('`fallbacks` cannot be combined with `models`');
  });

  it('rejects more than 3 fallbacks', () => {
    const fallbacks = [{ model: 'a/b' }, { model: 'a/c' }, { model: 'a/d' }, { model: 'a/e' }];
    expect(failure(() => requestedModels(request({ fallbacks }))).status).toBe(400);
  });

  it('uses the auto-router choice as the primary model', () => {
    expect(requestedModels(request({ model: 'switchboard/auto' }), 'openai/gpt')).toEqual(['openai/gpt']);
  });
});

describe('planAttempts: models', () => {
  it('tries every endpoint of the primary model before the fallback models, in request order', () => {
    const plan = planAttempts(planInput({ request: request({ fallbacks: [{ model: 'meta/llama' }, { model: 'openai/gpt' }] }) }));
    expect(summarize(plan.attempts)).toEqual([
      'anthropic/claude@anthropic',
      'anthropic/claude@bedrock',
      'anthropic/claude@vertex',
      'meta/llama@together',
      'meta/llama@deepinfra',
      'openai/gpt@openai',
      'openai/gpt@azure',
    ]);
    expect(plan.strategy).toBe('price-weighted');
  });

  it.each([
    ['primary', request({ model: 'nobody/none' }), 'Model not found: nobody/none'],
    ['fallback', request({ fallbacks: [{ model: 'nobody/else' }] }), 'Model not found: nobody/else'],
    ['models entry', request({ models: ['openai/gpt', 'nobody/third'] }), 'Model not found: nobody/third'],
  ])('answers 404 for an unknown %s model', (_name, body, message) => {
    const error = failure(() => planAttempts(planInput({ request: body })));
    expect(error.status).toBe(404);
    expect(error.publicMessage).toBe(message);
  });

  it('resolves aliases through the lookup and reports the canonical slug', () => {
    const claude = CATALOG[0] as PlanModel;
    const input = planInput({ request: request({ model: 'claude-latest' }), models: (slug) => (slug === 'claude-latest' ? claude : undefined) });
    expect(new Set(planAttempts(input).attempts.map((attempt) => attempt.model))).toEqual(new Set(['anthropic/claude']));
  });

  it('lists every (model, provider) pair once in `available`, in attempt order', () => {
    const plan = planAttempts(planInput({ request: request({ models: ['openai/gpt'] }) }));
    expect(plan.available).toEqual([
      { model: 'anthropic/claude', provider: 'Anthropic', providerSlug: 'anthropic' },
      { model: 'anthropic/claude', provider: 'Bedrock', providerSlug: 'bedrock' },
      { model: 'anthropic/claude', provider: 'Vertex', providerSlug: 'vertex' },
      { model: 'openai/gpt', provider: 'Openai', providerSlug: 'openai' },
      { model: 'openai/gpt', provider: 'Azure', providerSlug: 'azure' },
    ]);
  });

  it('gives each attempt the position of its pair in `available`, keys of one pair sharing it', () => {
    const plan = planAttempts(planInput({ credentials: [credential('k1', 'bedrock')] }));
    expect(plan.attempts.map((attempt) => `${attempt.endpoint.provider}${attempt.credential.kind === 'byok' ? '#byok' : ''}:${attempt.availableIndex}`)).toEqual(
      plan.attempts.map((attempt) => `${attempt.endpoint.provider}${attempt.credential.kind === 'byok' ? '#byok' : ''}:${plan.available.findIndex((entry) => entry.providerSlug === attempt.endpoint.provider)}`),
    );
    expect(new Set(plan.attempts.filter((attempt) => attempt.endpoint.provider === 'bedrock').map((attempt) => attempt.availableIndex)).size).toBe(1);
  });

  it('keeps the fallback model when the primary loses every endpoint, with a warning naming why', () => {
    const plan = planAttempts(planInput({ request: request({ fallbacks: [{ model: 'meta/llama' }], provider: { ignore: ['anthropic', 'bedrock', 'vertex'] } }) }));
    expect(summarize(plan.attempts)).toEqual(['meta/llama@together', 'meta/llama@deepinfra']);
    expect(plan.warnings).toContain('skipped: provider.ignore excludes every endpoint of anthropic/claude');
  });

  it('answers 404 naming every model when none can be served', () => {
    const error = failure(() => planAttempts(planInput({ request: request({ fallbacks: [{ model: 'openai/gpt' }], provider: { only: ['together'] } }) })));
    expect(error.status).toBe(404);
    expect(error.publicMessage).toBe(
      'No endpoint can serve this request: provider.only excludes every endpoint of anthropic/claude; provider.only excludes every endpoint of openai/gpt',
    );
  });

  it('answers 404 for a model without endpoints', () => {
    const input = planInput({ request: request({ model: 'empty/model' }) }, [{ slug: 'empty/model', endpoints: [] }]);
    expect(failure(() => planAttempts(input)).publicMessage).toBe('No endpoint can serve this request: empty/model has no endpoint');
  });

  it('starts from the request without changing it', () => {
    const body = request({ fallbacks: [{ model: 'openai/gpt' }], provider: { sort: 'price' } });
    const copy = structuredClone(body);
    planAttempts(planInput({ request: body }));
    expect(body).toEqual(copy);
  });
});
