/**
 * Lifecycle stages of endpoints and models (`GET /models`' `lifecycle`, `deprecated_at`, `retires_at`), as
 * pure functions over the dates the catalog records and the time asked about.
 */
import { describe, expect, it } from 'vitest';
import { endpointLifecycle, lifecycleChanges, lifecycleEpoch, modelLifecycle, type LifecycleView } from '#src/catalog/lifecycle.ts';

const RETIRES = '2026-11-30T00:00:00Z';
const ANNOUNCED = '2026-09-15T00:00:00Z';
const at = (time: string) => Date.parse(time);

describe('endpointLifecycle', () => {
  it.each<[string, string | null, string | null, string, LifecycleView]>([
    ['no retirement scheduled', null, null, '2026-11-28T00:00:00Z', { lifecycle: 'active', deprecated_at: null, retires_at: null }],
    ['a retirement ahead', ANNOUNCED, RETIRES, '2026-11-29T23:59:59Z', { lifecycle: 'deprecated', deprecated_at: ANNOUNCED, retires_at: RETIRES }],
    ['a retirement ahead, its announcement unrecorded', null, RETIRES, '2026-11-28T00:00:00Z', { lifecycle: 'deprecated', deprecated_at: null, retires_at: RETIRES }],
    ['the retirement instant', ANNOUNCED, RETIRES, RETIRES, { lifecycle: 'retired', deprecated_at: ANNOUNCED, retires_at: RETIRES }],
    ['after the retirement', null, RETIRES, '2026-12-01T00:00:00Z', { lifecycle: 'retired', deprecated_at: null, retires_at: RETIRES }],
  ])('%s', (_name, deprecatedAt, retiresAt, now, expected) => {
    expect(endpointLifecycle({ deprecatedAt, retiresAt }, at(now))).toEqual(expected);
  });
});

describe('modelLifecycle', () => {
  const active: LifecycleView = { lifecycle: 'active', deprecated_at: null, retires_at: null };
  const deprecated = (retires: string, announced: string | null = null): LifecycleView => ({ lifecycle: 'deprecated', deprecated_at: announced, retires_at: retires });
  const retired = (retires: string, announced: string | null = null): LifecycleView => ({ lifecycle: 'retired', deprecated_at: announced, retires_at: retires });

  it.each<[string, LifecycleView[], LifecycleView]>([
    ['one active endpoint keeps the model active', [retired('2026-06-15T00:00:00Z'), active], active],
    ['deprecated endpoints only: it retires with the last of them', [deprecated('2026-11-30T00:00:00Z', ANNOUNCED), deprecated('2027-02-05T00:00:00Z')], deprecated('2027-02-05T00:00:00Z', ANNOUNCED)],
    ['retired endpoints do not decide while one is deprecated', [retired('2027-06-01T00:00:00Z', '2027-01-01T00:00:00Z'), deprecated('2026-11-30T00:00:00Z')], deprecated('2026-11-30T00:00:00Z')],
    ['every endpoint retired', [retired('2026-06-15T00:00:00Z', '2026-04-14T00:00:00Z'), retired('2026-08-05T00:00:00Z')], retired('2026-08-05T00:00:00Z', '2026-04-14T00:00:00Z')],
    ['no endpoint', [], active],
  ])('%s', (_name, endpoints, expected) => {
    expect(modelLifecycle(endpoints)).toEqual(expected);
  });
});

describe('lifecycle epochs', () => {
  const changes = lifecycleChanges([{ retiresAt: RETIRES }, { retiresAt: null }, { retiresAt: '2026-06-15T00:00:00Z' }, { retiresAt: RETIRES }]);

  it('are the distinct retirement times, ascending', () => {
    expect(changes).toEqual([at('2026-06-15T00:00:00Z'), at(RETIRES)]);
  });

  it.each([
    ['2026-01-01T00:00:00Z', 0],
    ['2026-06-15T00:00:00Z', 1],
    ['2026-11-29T23:59:59Z', 1],
    [RETIRES, 2],
  ])('at %s, %i changes have happened', (time, epoch) => {
    expect(lifecycleEpoch(changes, at(time))).toBe(epoch);
  });
});
