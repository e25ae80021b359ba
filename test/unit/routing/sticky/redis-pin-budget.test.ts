/**
 * The Redis side of the thread pins' byte bound against the real Redis at REDIS_URL: a deleted pin's bytes
 * are freed at once (plain and compare-and-delete), and the scripts are Redis Cluster safe: every key a script
 * touches is one it declared in KEYS (read from MONITOR, which lists the commands a script runs), and every
 * key of a bounded store carries the same hash tag, so all hash to one slot.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createLogger } from '#src/logger.ts';
import { pinBytes } from '#src/routing/sticky/memory-pin-store.ts';
import { RedisPinStore } from '#src/routing/sticky/redis-pin-store.ts';
import { budgetedPinPrefix, pinBudgetKeys } from '#src/routing/sticky/redis-pin-budget.ts';
import type { StickyPin } from '#src/routing/plan-types.ts';

const HOUR = 60 * 60_000;
const redisUrl = process.env.REDIS_URL;
const inCi = process.env.CI === 'true';

function pinWithResult(size: number, model = 'anthropic/claude-sonnet-4.5'): StickyPin {
  return { provider: 'anthropic', credentialId: null, model, messageId: 'msg_01', pendingResults: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'x'.repeat(size) }] };
}
const PIN_BYTES = pinBytes(pinWithResult(10_000));

/** The hash tag Redis Cluster hashes a key by: the first braced part with something in it, else the key. */
function hashTag(key: string): string {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  return open >= 0 && close > open + 1 ? key.slice(open + 1, close) : key;
}

// Skipped only in local development without Redis; in CI a missing Redis fails here.
describe.skipIf(redisUrl === undefined && !inCi)('thread pin budget scripts against a real Redis', () => {
  const prefix = `switchboard:test:${randomUUID()}:`;
  const pins = budgetedPinPrefix(prefix);
  const budget = pinBudgetKeys(pins);
  const logger = createLogger({ level: 'error' });
  let raw: Redis;
  let store: RedisPinStore;

  const present = async (keys: string[]) => {
    const found: string[] = [];
    for (const key of keys) if ((await store.get(key)) !== undefined) found.push(key);
    return found;
  };
  const clear = async () => {
    const keys = await raw.keys(`${prefix}*`);
    if (keys.length > 0) await raw.del(...keys);
  };
  const counted = async () => ({ total: Number(await raw.get(budget.total)), indexed: await raw.zrange(budget.index, '0', '-1'), sized: Object.keys(await raw.hgetall(budget.sizes)).sort() });

  beforeAll(async () => {
    if (redisUrl === undefined) throw new Error('CI=true but REDIS_URL is not set');
    raw = new Redis(redisUrl, { maxRetriesPerRequest: 1, commandTimeout: 2_000 });
    store = new RedisPinStore({ url: redisUrl, prefix, logger, commandTimeoutMs: 2_000, maxBytes: 3 * PIN_BYTES, throwOnFailure: true });
  });
  afterAll(async () => {
    await clear();
    await raw.quit();
    await store.close();
  });

  it('frees a deleted pin’s bytes at once: the bound then holds a new pin without evicting another', async () => {
    for (const key of ['a0', 'a1', 'a2']) await store.set(key, pinWithResult(10_000), HOUR);
    await store.delete('a1');
    expect(await counted()).toEqual({ total: 2 * PIN_BYTES, indexed: [`${pins}a0`, `${pins}a2`], sized: [`${pins}a0`, `${pins}a2`] });
    await store.set('a3', pinWithResult(10_000), HOUR);
    expect(await present(['a0', 'a1', 'a2', 'a3'])).toEqual(['a0', 'a2', 'a3']);
    expect(Number(await raw.get(budget.total))).toBe(3 * PIN_BYTES);
  });

  it('frees the bytes on a compare-and-delete of the same pin only', async () => {
    await clear();
    await store.set('b0', pinWithResult(10_000), HOUR);
    await store.delete('b0', pinWithResult(10_000, 'another/model'));
    expect(await present(['b0'])).toEqual(['b0']);
    expect(Number(await raw.get(budget.total))).toBe(PIN_BYTES);
    await store.delete('b0', pinWithResult(10_000));
    expect(await present(['b0'])).toEqual([]);
    expect(await counted()).toEqual({ total: 0, indexed: [], sized: [] });
  });

  it('touches only declared keys, all in one hash slot, when a write evicts pins', async () => {
    await clear();
    const monitor = await raw.duplicate().monitor();
    // Each of this store's scripts, with the keys it declared and the keys its commands touched.
    const runs: { declared: string[]; touched: string[] }[] = [];
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (source !== 'lua') {
        const [command, , count, ...rest] = args;
        if (command?.toLowerCase() === 'eval' && rest.some((arg) => arg.startsWith(prefix))) runs.push({ declared: rest.slice(0, Number(count)), touched: [] });
        else runs.push({ declared: [], touched: [] });
        return;
      }
      const run = runs.at(-1);
      const [command, ...keys] = args;
      // TIME names no key; DEL may name several; every other command here names one, first.
      if (run && command !== 'TIME') run.touched.push(...(command === 'DEL' ? keys : keys.slice(0, 1)));
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Fill the bound, then a pin as large as two: the write must evict two pins it did not know of beforehand.
    for (const key of ['c0', 'c1', 'c2']) await store.set(key, pinWithResult(10_000), HOUR);
    await store.set('big', pinWithResult(20_000), HOUR);
    await store.delete('c2', pinWithResult(10_000));
    await new Promise((resolve) => setTimeout(resolve, 200));
    await monitor.disconnect();

    expect(await present(['c0', 'c1', 'c2', 'big'])).toEqual(['big']);
    const ours = runs.filter((run) => run.declared.length > 0);
    expect(ours.length).toBeGreaterThanOrEqual(5);
    expect(ours.some((run) => run.touched.includes(`${pins}c0`) && run.touched.includes(`${pins}c1`) && run.touched.includes(`${pins}big`))).toBe(true);
    expect(ours.flatMap((run) => run.touched.filter((key) => !run.declared.includes(key)))).toEqual([]);
    for (const run of ours) expect(new Set(run.declared.map(hashTag))).toEqual(new Set(['pins']));
    for (const key of await raw.keys(`${prefix}*`)) expect(hashTag(key)).toBe('pins');
  });
});
