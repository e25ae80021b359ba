/**
 * BYOK first, with sticky pins: the routing plan (pure) given a session's pin, the kind of session, and the
 * caller's credentials as they are now. The default catalog serves `anthropic/claude` on anthropic, bedrock
 * and vertex (catalog order is the plan's order here, the random source always answering 0).
 */
import { describe, expect, it } from 'vitest';
import { planAttempts } from '#src/routing/routing-plan.ts';
import type { PlanCredential, StickyKind, StickyPin } from '#src/routing/plan-types.ts';
import { credential, planInput, request, summarize } from '#test/unit/routing/plan-fixtures.ts';

const CALLER = 'c'.repeat(64);

function plan(pin: StickyPin, kind: StickyKind, credentials: PlanCredential[]): { attempts: string[]; strategy: string } {
  const result = planAttempts(planInput({ request: request(), credentials, callerKeyHash: CALLER, stickyPin: pin, stickyKind: kind }));
  return { attempts: summarize(result.attempts), strategy: result.strategy };
}

const sharedOn = (provider: string): StickyPin => ({ provider, credentialId: null, model: 'anthropic/claude' });
const byokOn = (provider: string, credentialId: string): StickyPin => ({ provider, credentialId, model: 'anthropic/claude' });

describe('a pin to the shared key, now that the caller may have a key', () => {
  it.each<[string, StickyPin, StickyKind, PlanCredential[], string, string]>([
    // No credential: the pin wins, whatever the kind.
    ['content, no credential', sharedOn('vertex'), 'content', [], 'anthropic/claude@vertex', 'sticky'],
    ['session, no credential', sharedOn('vertex'), 'session', [], 'anthropic/claude@vertex', 'sticky'],
    // A key for the pinned provider: the provider is kept and the key moves to the caller's.
    ['content, a key for the pinned provider', sharedOn('vertex'), 'content', [credential('k', 'vertex')], 'anthropic/claude@vertex#k', 'sticky'],
    ['session, a key for the pinned provider', sharedOn('vertex'), 'session', [credential('k', 'vertex')], 'anthropic/claude@vertex#k', 'sticky'],
    ['session, is_byok_only key for the pinned provider', sharedOn('vertex'), 'session', [credential('k', 'vertex', { isByokOnly: true })], 'anthropic/claude@vertex#k', 'sticky'],
    ['session, the first of two keys in sort_order', sharedOn('vertex'), 'session', [credential('k2', 'vertex', { sortOrder: 2 }), credential('k1', 'vertex', { sortOrder: 1 })], 'anthropic/claude@vertex#k1', 'sticky'],
    // A key for another provider: a content hash yields to the plan's BYOK-first order; a session keeps its provider.
    ['content, a key for another provider', sharedOn('vertex'), 'content', [credential('k', 'bedrock')], 'anthropic/claude@bedrock#k', 'price-weighted'],
    ['session, a key for another provider', sharedOn('vertex'), 'session', [credential('k', 'bedrock')], 'anthropic/claude@vertex', 'sticky'],
    // Keys the plan does not place first change nothing.
    ['content, a fallback key for the pinned provider', sharedOn('vertex'), 'content', [credential('k', 'vertex', { isFallback: true })], 'anthropic/claude@vertex', 'sticky'],
    ['content, a fallback key for another provider', sharedOn('vertex'), 'content', [credential('k', 'bedrock', { isFallback: true })], 'anthropic/claude@vertex', 'sticky'],
    ['content, a disabled key for another provider', sharedOn('vertex'), 'content', [credential('k', 'bedrock', { disabled: true })], 'anthropic/claude@vertex', 'sticky'],
    ['content, a key limited to other gateway keys', sharedOn('vertex'), 'content', [credential('k', 'bedrock', { allowedApiKeyHashes: ['0'.repeat(64)] })], 'anthropic/claude@vertex', 'sticky'],
    ['content, a key limited to other models', sharedOn('vertex'), 'content', [credential('k', 'bedrock', { allowedModels: ['openai/gpt'] })], 'anthropic/claude@vertex', 'sticky'],
  ])('%s', (_name, pin, kind, credentials, first, strategy) => {
    const result = plan(pin, kind, credentials);
    expect(result.attempts[0]).toBe(first);
    expect(result.strategy).toBe(strategy);
  });

  it('moves only the chosen attempt: the shared key of the pinned provider stays where the plan put it', () => {
    expect(plan(sharedOn('vertex'), 'session', [credential('k', 'vertex')]).attempts).toEqual([
      'anthropic/claude@vertex#k',
      'anthropic/claude@vertex',
      'anthropic/claude@anthropic',
      'anthropic/claude@bedrock',
    ]);
  });
});

describe('a pin to one of the caller’s keys', () => {
  it.each<[string, StickyPin, StickyKind, PlanCredential[], string, string]>([
    ['the key still applies', byokOn('vertex', 'k'), 'content', [credential('j', 'bedrock'), credential('k', 'vertex')], 'anthropic/claude@vertex#k', 'sticky'],
    ['a later key of the same provider stays pinned', byokOn('vertex', 'k2'), 'session', [credential('k1', 'vertex', { sortOrder: 1 }), credential('k2', 'vertex', { sortOrder: 2 })], 'anthropic/claude@vertex#k2', 'sticky'],
    // Disabled or deleted: the pin never points to it again; the provider is kept on its next key.
    ['session, the key disabled', byokOn('vertex', 'k'), 'session', [credential('k', 'vertex', { disabled: true })], 'anthropic/claude@vertex', 'sticky'],
    ['session, the key deleted', byokOn('vertex', 'k'), 'session', [], 'anthropic/claude@vertex', 'sticky'],
    ['content, the key deleted, another key for that provider', byokOn('vertex', 'k'), 'content', [credential('k2', 'vertex')], 'anthropic/claude@vertex#k2', 'sticky'],
    ['content, the key deleted, a key for another provider', byokOn('vertex', 'k'), 'content', [credential('j', 'bedrock')], 'anthropic/claude@bedrock#j', 'price-weighted'],
    ['content, the key no longer allowed for this gateway key', byokOn('vertex', 'k'), 'content', [credential('k', 'vertex', { allowedApiKeyHashes: ['0'.repeat(64)] })], 'anthropic/claude@vertex', 'sticky'],
    // The pinned provider has no key left at all (is_required removes the shared key; the caller may not use it).
    ['session, the pinned provider without any key', byokOn('vertex', 'k'), 'session', [credential('r', 'vertex', { isRequired: true, allowedApiKeyHashes: ['0'.repeat(64)] })], 'anthropic/claude@anthropic', 'price-weighted'],
  ])('%s', (_name, pin, kind, credentials, first, strategy) => {
    const result = plan(pin, kind, credentials);
    expect(result.attempts[0]).toBe(first);
    expect(result.strategy).toBe(strategy);
  });

  it('never plans an attempt on a disabled or deleted pinned key', () => {
    for (const credentials of [[credential('k', 'vertex', { disabled: true })], []]) {
      expect(plan(byokOn('vertex', 'k'), 'session', credentials).attempts.some((attempt) => attempt.includes('#k'))).toBe(false);
    }
  });
});

describe('a pin under allow_fallbacks: false (no order, no only)', () => {
  const strict = (pin: StickyPin | null, credentials: PlanCredential[] = []): string[] =>
    summarize(planAttempts(planInput({ request: request({ provider: { allow_fallbacks: false } }), credentials, stickyPin: pin, stickyKind: 'session' })).attempts);

  it.each<[string, StickyPin | null, PlanCredential[], string[]]>([
    ['without a pin, the first provider chosen', null, [], ['anthropic/claude@anthropic']],
    ['the pinned provider is the one kept', sharedOn('vertex'), [], ['anthropic/claude@vertex']],
    ['the pinned provider is kept with all its keys, the pinned key first', byokOn('vertex', 'k2'), [credential('k1', 'vertex', { sortOrder: 1 }), credential('k2', 'vertex', { sortOrder: 2 })], ['anthropic/claude@vertex#k2', 'anthropic/claude@vertex#k1', 'anthropic/claude@vertex']],
    ['a pin the plan cannot use leaves the first provider chosen', sharedOn('nobody'), [], ['anthropic/claude@anthropic']],
  ])('%s', (_name, pin, credentials, expected) => {
    expect(strict(pin, credentials)).toEqual(expected);
  });
});
