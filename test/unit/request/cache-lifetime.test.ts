import { describe, expect, it } from 'vitest';
import { cacheLifetimeSeconds, nearestKnownCacheLifetime } from '#src/request/cache-lifetime.ts';

describe('cacheLifetimeSeconds', () => {
  it.each([
    ['5m', 300],
    ['1h', 3600],
    ['24h', 86_400],
    ['90s', 90],
    ['7d', 604_800],
    ['0m', undefined],
    ['05m', undefined],
    ['1.5h', undefined],
    ['1H', undefined],
    ['1w', undefined],
    ['forever', undefined],
    ['', undefined],
    ['1234567m', undefined],
  ])('%s is %s seconds', (ttl, seconds) => {
    expect(cacheLifetimeSeconds(ttl)).toBe(seconds);
  });
});

describe('nearestKnownCacheLifetime', () => {
  it.each([
    [undefined, '5m'],
    ['5m', '5m'],
    ['1h', '1h'],
    ['300s', '5m'],
    ['10m', '5m'],
    // The geometric mean of 5 and 60 minutes is about 17.3 minutes.
    ['17m', '5m'],
    ['18m', '1h'],
    ['30m', '1h'],
    ['24h', '1h'],
    ['1d', '1h'],
    ['1s', '5m'],
    ['forever', undefined],
    ['1.5h', undefined],
  ])('%s goes as %s', (ttl, known) => {
    expect(nearestKnownCacheLifetime(ttl)).toBe(known);
  });
});
