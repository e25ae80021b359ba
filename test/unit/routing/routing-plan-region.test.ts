import { describe, expect, it } from 'vitest';
import { GatewayError } from '#src/errors.ts';
import { planAttempts } from '#src/routing/routing-plan.ts';
import { servesRegion } from '#src/routing/byok-selection.ts';
import type { PlanCredential, PlanEndpoint, RegionalExclusions } from '#src/routing/plan-types.ts';
import type { DataRegion } from '#src/data-region.ts';
import { credential, endpoint, model, planInput, request, summarize } from '#test/unit/routing/plan-fixtures.ts';

describe('servesRegion', () => {
  const globalOnly = endpoint('x/m', 'p', { regions: ['global'] });
  const withEurope = endpoint('x/m', 'p', { regions: ['global', 'europe'] });
  const declared = (declaredRegion: DataRegion | null) => credential('k', 'p', { declaredRegion });

  it.each<[string, PlanEndpoint, PlanCredential | null, DataRegion, boolean]>([
    ['a global request: shared on a global-only endpoint', globalOnly, null, 'global', true],
    ['a global request: a europe key', globalOnly, declared('europe'), 'global', true],
    ['europe: shared on a global-only endpoint', globalOnly, null, 'europe', false],
    ['europe: shared on an endpoint serving europe', withEurope, null, 'europe', true],
    ['europe: undeclared key follows the endpoint (no)', globalOnly, declared(null), 'europe', false],
    ['europe: undeclared key follows the endpoint (yes)', withEurope, declared(null), 'europe', true],
    ['europe: global key follows the endpoint (no)', globalOnly, declared('global'), 'europe', false],
    ['europe: global key follows the endpoint (yes)', withEurope, declared('global'), 'europe', true],
    ['europe: a key declaring europe on a global-only endpoint', globalOnly, declared('europe'), 'europe', true],
    ['europe: a key declaring us', withEurope, declared('us'), 'europe', false],
    ['us: a key declaring us', globalOnly, declared('us'), 'us', true],
    ['us: a key declaring europe', globalOnly, declared('europe'), 'us', false],
  ])('%s', (_name, target, key, region, expected) => {
    expect(servesRegion(target, key, region)).toBe(expected);
  });

  it.each<[string, RegionalExclusions, boolean]>([
    ['no exclusion', {}, true],
    ['a private endpoint', { privateEndpoint: true }, false],
    ['an endpoint pinned to another cloud region', { pinnedRegion: 'us' }, false],
    ['an endpoint pinned to the requested region', { pinnedRegion: 'europe' }, true],
    ['a cross-region inference profile', { crossRegionProfile: true }, false],
    ['a video model', { video: true }, false],
  ])('a europe key on %s', (_name, regionalExclusions, expected) => {
    expect(servesRegion(endpoint('x/m', 'p', { regions: ['global'], regionalExclusions }), declared('europe'), 'europe')).toBe(expected);
  });

  it('exclusions do not remove an endpoint that serves the region with its own capacity', () => {
    expect(servesRegion(endpoint('x/m', 'p', { regions: ['global', 'europe'], regionalExclusions: { privateEndpoint: true } }), declared('europe'), 'europe')).toBe(true);
  });
});

describe('planAttempts in a region', () => {
  const catalog = [
    model('x/m', [
      ['everywhere', { regions: ['global', 'us', 'europe'] }],
      ['usonly', { regions: ['global', 'us'] }],
      ['globalonly', { regions: ['global'] }],
    ]),
  ];
  const plan = (region: DataRegion, credentials: PlanCredential[] = [], provider = {}) =>
    summarize(planAttempts(planInput({ region, credentials, request: request({ model: 'x/m', provider }) }, catalog)).attempts);

  it.each<[DataRegion, PlanCredential[], string[]]>([
    ['global', [], ['x/m@everywhere', 'x/m@usonly', 'x/m@globalonly']],
    ['us', [], ['x/m@everywhere', 'x/m@usonly']],
    ['europe', [], ['x/m@everywhere']],
    ['europe', [credential('k', 'globalonly', { declaredRegion: 'europe' })], ['x/m@globalonly#k', 'x/m@everywhere']],
    ['europe', [credential('k', 'usonly', { declaredRegion: 'us' })], ['x/m@everywhere']],
    ['us', [credential('k', 'usonly', { declaredRegion: 'us' })], ['x/m@usonly#k', 'x/m@usonly', 'x/m@everywhere']],
    ['europe', [credential('k', 'globalonly', { declaredRegion: null })], ['x/m@everywhere']],
    ['europe', [credential('k', 'everywhere', { declaredRegion: 'global' })], ['x/m@everywhere#k', 'x/m@everywhere']],
  ])('%s with %j', (region, credentials, expected) => {
    expect(plan(region, credentials)).toEqual(expected);
  });

  it('combines region, zdr and is_required: only a europe, ZDR-declaring key survives', () => {
    const credentials = [
      credential('eu-zdr', 'globalonly', { declaredRegion: 'europe', declaredZdr: true, isRequired: true }),
      credential('eu', 'globalonly', { declaredRegion: 'europe', sortOrder: 1 }),
      credential('us-zdr', 'usonly', { declaredRegion: 'us', declaredZdr: true }),
    ];
    expect(plan('europe', credentials, { zdr: true })).toEqual(['x/m@globalonly#eu-zdr']);
  });

  it('names the region when nothing serves it', () => {
    const input = planInput({ region: 'europe', request: request({ model: 'x/m', provider: { ignore: ['everywhere'] } }) }, catalog);
    try {
      planAttempts(input);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).publicMessage).toBe('No endpoint can serve this request: no endpoint of x/m serves region europe');
    }
  });
});
