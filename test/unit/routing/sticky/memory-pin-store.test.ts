import { describe, expect, it } from 'vitest';
import { MemoryPinStore } from '#src/routing/sticky/memory-pin-store.ts';
import type { StickyPin } from '#src/routing/plan-types.ts';

describe('MemoryPinStore', () => {
  const pin: StickyPin = { provider: 'anthropic', credentialId: null, model: 'anthropic/claude' };

  it('returns a pin until its idle time passes', async () => {
    let now = 1_000;
    const store = new MemoryPinStore({ now: () => now });
    await store.set('k', pin, 100);
    now = 1_099;
    expect(await store.get('k')).toEqual(pin);
    now = 1_100;
    expect(await store.get('k')).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it('evicts the least recently written pin beyond its bound', async () => {
    const store = new MemoryPinStore({ maxEntries: 2 });
    await store.set('a', pin, 60_000);
    await store.set('b', pin, 60_000);
    await store.set('a', pin, 60_000);
    await store.set('c', pin, 60_000);
    expect([await store.get('a'), await store.get('b'), await store.get('c')]).toEqual([pin, undefined, pin]);
  });

  it('deletes', async () => {
    const store = new MemoryPinStore();
    await store.set('k', pin, 60_000);
    await store.delete('k');
    expect(await store.get('k')).toBeUndefined();
  });

  it('deletes conditionally only while the pin is still the expected one', async () => {
    const store = new MemoryPinStore();
    const other: StickyPin = { provider: 'vertex', credentialId: null, model: 'anthropic/claude' };
    await store.set('k', other, 60_000);
    await store.delete('k', pin);
    expect(await store.get('k')).toEqual(other);
    await store.delete('k', { ...other });
    expect(await store.get('k')).toBeUndefined();
  });
});
