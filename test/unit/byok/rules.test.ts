import { describe, expect, it } from 'vitest';
import {
  checkFlags,
  checkKeyHashes,
  resolveDeclaredRegion,
  RuleViolation,
  type CredentialFlags,
  type RegionInput,
} from '#src/byok/rules.ts';

function reasonOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (error instanceof RuleViolation) return error.reason;
    throw error;
  }
}

describe('checkFlags', () => {
  const cases: [CredentialFlags, string | undefined][] = [
    [{ isFallback: false, isByokOnly: false, isRequired: false }, undefined],
    [{ isFallback: true, isByokOnly: false, isRequired: false }, undefined],
    [{ isFallback: false, isByokOnly: true, isRequired: false }, undefined],
    [{ isFallback: false, isByokOnly: false, isRequired: true }, undefined],
    [{ isFallback: false, isByokOnly: true, isRequired: true }, undefined],
    [{ isFallback: true, isByokOnly: true, isRequired: false }, 'is_fallback cannot be combined with is_byok_only'],
    [{ isFallback: true, isByokOnly: false, isRequired: true }, 'is_required is only valid on a non-fallback credential'],
    [{ isFallback: true, isByokOnly: true, isRequired: true }, 'is_fallback cannot be combined with is_byok_only'],
  ];
  it.each(cases)('%o -> %s', (flags, reason) => {
    expect(reasonOf(() => checkFlags(flags))).toBe(reason);
  });
});

describe('resolveDeclaredRegion', () => {
  const base = { keyChanged: false, stored: null, requested: undefined } satisfies Partial<RegionInput>;
  const cases: [string, RegionInput, string | null | RegExp][] = [
    // openai / fireworks: the key decides
    ['create, region-bound key, omitted -> derived', { ...base, provider: 'openai', keyRegion: 'europe', keyChanged: true }, 'europe'],
    ['create, plain key, omitted -> null', { ...base, provider: 'fireworks', keyRegion: null, keyChanged: true }, null],
    ['region-bound key, matching declaration', { ...base, provider: 'openai', keyRegion: 'us', requested: 'us' }, 'us'],
    ['region-bound key, other region', { ...base, provider: 'openai', keyRegion: 'us', requested: 'europe' }, /does not match the region of the openai key \(us\)/],
    ['region-bound key, global', { ...base, provider: 'fireworks', keyRegion: 'europe', requested: 'global' }, /does not match/],
    ['region-bound key, null', { ...base, provider: 'openai', keyRegion: 'europe', requested: null }, /declared_region null does not match/],
    ['plain key, europe', { ...base, provider: 'openai', keyRegion: null, requested: 'europe' }, /comes from the key/],
    ['plain key, global', { ...base, provider: 'openai', keyRegion: null, requested: 'global' }, 'global'],
    ['plain key, null', { ...base, provider: 'openai', keyRegion: null, stored: 'global', requested: null }, null],
    ['omitted keeps stored', { ...base, provider: 'openai', keyRegion: 'us', stored: 'us' }, 'us'],
    ['rotation re-derives', { ...base, provider: 'openai', keyRegion: 'europe', keyChanged: true, stored: 'us' }, 'europe'],
    ['rotation to plain key clears', { ...base, provider: 'fireworks', keyRegion: null, keyChanged: true, stored: 'us' }, null],
    ['rotation with mismatching declaration', { ...base, provider: 'openai', keyRegion: 'europe', keyChanged: true, requested: 'us' }, /does not match/],
    // azure declares freely
    ['azure europe', { ...base, provider: 'azure', keyRegion: null, requested: 'europe' }, 'europe'],
    ['azure us', { ...base, provider: 'azure', keyRegion: null, requested: 'us' }, 'us'],
    ['azure null clears', { ...base, provider: 'azure', keyRegion: null, stored: 'us', requested: null }, null],
    ['azure omitted keeps', { ...base, provider: 'azure', keyRegion: null, stored: 'us', keyChanged: true }, 'us'],
    // everyone else: global or null
    ['anthropic global', { ...base, provider: 'anthropic', keyRegion: null, requested: 'global' }, 'global'],
    ['anthropic null', { ...base, provider: 'anthropic', keyRegion: null, stored: 'global', requested: null }, null],
    ['anthropic europe', { ...base, provider: 'anthropic', keyRegion: null, requested: 'europe' }, /not accepted for anthropic/],
    ['google us', { ...base, provider: 'google', keyRegion: null, requested: 'us' }, /only azure accepts europe or us/],
  ];
  it.each(cases)('%s', (_name, input, expected) => {
    if (expected instanceof RegExp) expect(reasonOf(() => resolveDeclaredRegion(input))).toMatch(expected);
    else expect(resolveDeclaredRegion(input)).toBe(expected);
  });
});

describe('checkKeyHashes', () => {
  const live = new Set(['a'.repeat(64), 'b'.repeat(64)]);
  it('accepts null, omitted and live hashes', () => {
    expect(reasonOf(() => checkKeyHashes(null, live))).toBeUndefined();
    expect(reasonOf(() => checkKeyHashes(undefined, live))).toBeUndefined();
    expect(reasonOf(() => checkKeyHashes(['b'.repeat(64), 'a'.repeat(64)], live))).toBeUndefined();
  });
  it('names the first hash that is not live', () => {
    expect(reasonOf(() => checkKeyHashes(['a'.repeat(64), 'c'.repeat(64)], live))).toBe(
      'allowed_api_key_hashes[1] is not a live API key of this account',
    );
  });
});
