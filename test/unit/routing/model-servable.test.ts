/**
 * Which models a plan could serve for a request (the auto-router's candidates): the plan's own filters, with
 * the caller's keys, and `allow_fallbacks: false` with an order. A table over the default test catalog.
 */
import { describe, expect, it } from 'vitest';
import type { MessageRequest } from '#src/api-types.ts';
import { filterContextOf, modelServable } from '#src/routing/routing-plan.ts';
import type { PlanCredential } from '#src/routing/plan-types.ts';
import { CATALOG, credential, planInput, request } from '#test/unit/routing/plan-fixtures.ts';

function servable(body: MessageRequest, credentials: PlanCredential[] = [], sharedProviders?: ReadonlySet<string>): string[] {
  const input = planInput({ request: body, credentials, ...(sharedProviders ? { sharedProviders } : {}) });
  const context = filterContextOf(input);
  return CATALOG.filter((model) => modelServable(model, context)).map((model) => model.slug);
}

describe('modelServable', () => {
  it.each<[string, Partial<MessageRequest>, string[]]>([
    ['no preferences: every model', {}, ['anthropic/claude', 'openai/gpt', 'meta/llama']],
    ['only names one provider', { provider: { only: ['azure'] } }, ['openai/gpt']],
    ['ignore removes every provider of a model', { provider: { ignore: ['together', 'deepinfra'] } }, ['anthropic/claude', 'openai/gpt']],
    ['max_price below a model\'s every endpoint', { provider: { max_price: { completion: 5 } } }, ['meta/llama']],
    ['an order without fallbacks keeps the models it serves', { provider: { order: ['openai'], allow_fallbacks: false } }, ['openai/gpt']],
    ['an order with fallbacks keeps every model', { provider: { order: ['openai'] } }, ['anthropic/claude', 'openai/gpt', 'meta/llama']],
  ])('%s', (_name, overrides, expected) => {
    expect(servable(request(overrides))).toEqual(expected);
  });

  it('follows the caller\'s keys: is_required without an applicable key removes the provider', () => {
    const required = credential('r', 'openai', { isRequired: true, allowedApiKeyHashes: ['0'.repeat(64)] });
    expect(servable(request({ provider: { only: ['openai'] } }), [required])).toEqual([]);
    expect(servable(request({ provider: { only: ['openai'] } }), [credential('k', 'openai')], new Set())).toEqual(['openai/gpt']);
  });
});
