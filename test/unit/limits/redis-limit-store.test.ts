/**
 * The Lua scripts against a real Redis, through two connections as two gateway instances would have: admissions
 * are exact under concurrency, settlements count only into the spending their reservation saw, and
 * reservations of a dead instance expire. Skipped only in local development without REDIS_URL.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { RedisLimitStore } from '#src/limits/redis-limit-store.ts';
import { limitPeriod } from '#src/limits/limit-period.ts';
import { limitKeys } from '#src/limits/redis-limit-scripts.ts';
import type { AdmissionRequest } from '#src/limits/limit-store.ts';
import { redisUrlForTests } from '#test/helpers/gateway-process.ts';

const redisUrl = redisUrlForTests();

describe.skipIf(redisUrl === undefined)('RedisLimitStore against a real Redis', () => {
  let clients: Redis[];
  let stores: RedisLimitStore[];
  beforeAll(() => {
    clients = [new Redis(redisUrl as string), new Redis(redisUrl as string)];
    stores = clients.map((client) => new RedisLimitStore(client));
  });
  afterAll(() => Promise.all(clients.map((client) => client.quit())));

  const keyHash = () => randomBytes(32).toString('hex');
  const base = (hash: string, id: string, overrides: Partial<AdmissionRequest> = {}): AdmissionRequest => ({
    keyHash: hash,
    id,
    nowMs: Date.now(),
    credit: null,
    requestsPerMinute: null,
    tokens: null,
    streams: null,
    expiresAtMs: Date.now() + 60_000,
    ...overrides,
  });

  it('admits exactly the limit of 60 concurrent admissions from two connections', async () => {
    const hash = keyHash();
    const results = await Promise.all(Array.from({ length: 60 }, (_, index) => (stores[index % 2] as RedisLimitStore).admit(base(hash, `r${index}`, { requestsPerMinute: 25, streams: { max: 40 } }))));
    expect(results.filter((result) => result.ok)).toHaveLength(25);
    const usage = await (stores[0] as RedisLimitStore).usage({ keyHash: hash, period: null, requests: true, tokens: false, streams: true, nowMs: Date.now() });
    expect(usage).toMatchObject({ requests: 25, streams: 25 });
  });

  it('tells the windows an admission left, this request counted: their totals and their one-second buckets', async () => {
    const hash = keyHash();
    const store = stores[0] as RedisLimitStore;
    const nowMs = Date.now();
    const second = Math.floor(nowMs / 1000);
    const limits = { requestsPerMinute: 10, tokens: { limit: 1_000, amount: 70 } };
    expect(await store.admit(base(hash, 'a', { ...limits, nowMs: nowMs - 2_000 }))).toMatchObject({ ok: true, window: { requests: 1, tokens: 70 } });
    expect(await store.admit(base(hash, 'b', { ...limits, nowMs }))).toEqual({
      ok: true,
      seed: null,
      window: { requests: 2, tokens: 140, buckets: { requests: `${second - 2}:1,${second}:1`, tokens: `${second - 2}:70,${second}:70` } },
    });
    // A key without per-minute limits gets no window.
    expect(await store.admit(base(hash, 'c', { streams: { max: 5 } }))).toEqual({ ok: true, seed: null });
  });

  it('seeds once, holds the worst case, and settles only into the spending its reservation saw', async () => {
    const hash = keyHash();
    const [first, second] = stores as [RedisLimitStore, RedisLimitStore];
    const period = limitPeriod('daily', Date.now());
    const credit = { limit: 1, period, cost: 0.3 };
    expect(await first.admit(base(hash, 'a', { credit }))).toEqual({ ok: false, limit: 'seed' });
    const seed = await first.seed(hash, period, 0.2);
    expect(await second.seed(hash, period, 99)).toBe(seed);
    const admitted = await first.admit(base(hash, 'a', { credit }));
    expect(admitted).toEqual({ ok: true, seed });
    expect((await second.admit(base(hash, 'b', { credit }))).ok).toBe(true);
    expect((await second.admit(base(hash, 'c', { credit }))).ok).toBe(true);
    expect(await first.admit(base(hash, 'd', { credit }))).toEqual({ ok: false, limit: 'credit', spent: 0.2, reserved: expect.closeTo(0.9, 9) });
    await first.settle({ keyHash: hash, id: 'a', credit: { period, cost: 0.3 }, tokens: null, stream: false, seed }, { cost: 0.05, tokens: 0 }, Date.now());
    // A settlement made against a spending Redis has lost since (another seed) does not count twice.
    await first.settle({ keyHash: hash, id: 'b', credit: { period, cost: 0.3 }, tokens: null, stream: false, seed: 'an-older-seed' }, { cost: 0.05, tokens: 0 }, Date.now());
    const usage = await second.usage({ keyHash: hash, period, requests: false, tokens: false, streams: false, nowMs: Date.now() });
    expect(usage.spent).toBeCloseTo(0.25, 9);
  });

  it('settles a hold once: the same settlement sent again (its reply was lost) counts neither cost nor tokens twice', async () => {
    const hash = keyHash();
    const [first, second] = stores as [RedisLimitStore, RedisLimitStore];
    const period = limitPeriod('daily', Date.now());
    const seed = await first.seed(hash, period, 0);
    const nowMs = Date.now();
    expect((await first.admit(base(hash, 'once', { credit: { limit: 1, period, cost: 0.3 }, tokens: { limit: 10_000, amount: 500 }, nowMs }))).ok).toBe(true);
    const hold = { keyHash: hash, id: 'once', credit: { period, cost: 0.3 }, tokens: { second: Math.floor(nowMs / 1000), amount: 500 }, stream: false, seed };
    await first.settle(hold, { cost: 0.05, tokens: 120 }, nowMs);
    await second.settle(hold, { cost: 0.05, tokens: 120 }, nowMs + 5);
    const usage = await second.usage({ keyHash: hash, period, requests: false, tokens: true, streams: false, nowMs: nowMs + 10 });
    expect(usage.spent).toBeCloseTo(0.05, 9);
    expect(usage.tokens).toBe(120);
  });

  it('lets the reservation of an instance that died expire', async () => {
    const hash = keyHash();
    const [first] = stores as [RedisLimitStore];
    const period = limitPeriod(null, 0);
    await first.seed(hash, period, 0);
    const now = Date.now();
    expect((await first.admit(base(hash, 'lost', { credit: { limit: 1, period, cost: 5 }, nowMs: now, expiresAtMs: now + 200 }))).ok).toBe(true);
    expect((await first.admit(base(hash, 'next', { credit: { limit: 1, period, cost: 5 }, nowMs: now + 100 }))).ok).toBe(false);
    expect((await first.admit(base(hash, 'next', { credit: { limit: 1, period, cost: 5 }, nowMs: now + 300 }))).ok).toBe(true);
  });

  it('checks by the admission script\'s rules without writing: the same refusals, expired holds and streams left out', async () => {
    const hash = keyHash();
    const [first, second] = stores as [RedisLimitStore, RedisLimitStore];
    const period = limitPeriod('daily', Date.now());
    const now = Date.now();
    const all = (id: string, overrides: Partial<AdmissionRequest> = {}) =>
      base(hash, id, { nowMs: now, credit: { limit: 1, period, cost: 0.6 }, requestsPerMinute: 2, tokens: { limit: 100, amount: 40 }, streams: { max: 1 }, ...overrides });
    expect(await first.check(all('c'))).toEqual({ ok: false, limit: 'seed' });
    await first.seed(hash, period, 0);
    for (let index = 0; index < 5; index += 1) expect(await second.check(all(`c${index}`))).toEqual({ ok: true });
    const usage = () => second.usage({ keyHash: hash, period, requests: true, tokens: true, streams: true, nowMs: now });
    expect(await usage()).toEqual({ spent: 0, requests: 0, tokens: 0, streams: 0 });

    expect((await first.admit(all('a', { expiresAtMs: now + 500 }))).ok).toBe(true);
    const refused = await second.check(all('c'));
    expect(refused).toEqual({ ok: false, limit: 'streams', open: 1 });
    expect(await first.admit(all('c'))).toEqual(refused);
    expect((await first.admit(all('b', { streams: null }))).ok).toBe(true);
    expect(await second.check(all('c', { streams: null }))).toEqual({ ok: false, limit: 'credit', spent: 0, reserved: expect.closeTo(1.2, 9) });
    expect(await second.check(all('c', { streams: null, credit: null }))).toMatchObject({ ok: false, limit: 'requests' });
    expect(await second.check(all('c', { streams: null, credit: null, requestsPerMinute: null, tokens: { limit: 80, amount: 0 } }))).toMatchObject({ ok: false, limit: 'tokens', used: 80 });
    expect(await usage()).toEqual({ spent: 0, requests: 2, tokens: 80, streams: 1 });
    // Hold 'a' and its stream expire at now + 500: the check leaves them out, as an admission would drop them.
    expect(await second.check(all('c', { nowMs: now + 600, credit: { limit: 1, period, cost: 0 }, requestsPerMinute: null, tokens: null }))).toEqual({ ok: true });
    expect(await second.check(all('c', { nowMs: now + 600, requestsPerMinute: null, tokens: null, streams: null }))).toEqual({ ok: true });
    // Left out, not deleted: the check wrote nothing.
    const [, holds, , , streams] = limitKeys(hash, period.id) as string[];
    expect(await (clients[0] as Redis).hexists(holds as string, 'a')).toBe(1);
    expect(await (clients[0] as Redis).zscore(streams as string, 'a')).not.toBeNull();
  });

  it('carries process counts in: buckets add to Redis\'s, open holds take their slots once (idempotent), and settle there', async () => {
    const hash = keyHash();
    const [store] = stores as [RedisLimitStore];
    const nowMs = Date.now();
    const second = Math.floor(nowMs / 1000);
    const period = limitPeriod('daily', nowMs);
    await store.seed(hash, period, 0.5);
    expect((await store.admit(base(hash, 'in-redis', { nowMs, requestsPerMinute: 5 }))).ok).toBe(true);
    const stream = { keyHash: hash, id: 'outage-stream', credit: { period, cost: 0.25 }, tokens: null, stream: true, seed: 'process' };
    const counts = { keyHash: hash, periodId: period.id, nowMs, requests: [[second, 3], [second - 120, 9]] as [number, number][], tokens: [], holds: [{ hold: stream, expiresAtMs: nowMs + 60_000 }] };
    const seed = await store.carry(counts);
    expect(seed).not.toBeNull();
    // Carried twice (a return seen twice): the hold is not reserved twice.
    await store.carry({ ...counts, requests: [] });
    // 1 counted in Redis + 3 carried (the bucket two minutes old is left out): one more fits under 5.
    expect((await store.admit(base(hash, 'fifth', { nowMs, requestsPerMinute: 5 }))).ok).toBe(true);
    expect(await store.admit(base(hash, 'sixth', { nowMs, requestsPerMinute: 5 }))).toMatchObject({ ok: false, limit: 'requests' });
    const [spentKey, holdsKey, , reservedKey, streamsKey] = limitKeys(hash, period.id) as [string, string, string, string, string];
    expect(Number(await clients[0]?.get(reservedKey))).toBeCloseTo(0.25, 9);
    expect(await clients[0]?.zcard(streamsKey)).toBe(1);
    await store.settle({ ...stream, seed }, { cost: 0.1, tokens: 0 }, nowMs);
    expect(await clients[0]?.zcard(streamsKey)).toBe(0);
    expect(await clients[0]?.hlen(holdsKey)).toBe(0);
    expect(Number(await clients[0]?.hget(spentKey, 'spent'))).toBeCloseTo(0.6, 9);
  });

  it('counts a settlement with an unknown seed only into spending seeded before its request was admitted', async () => {
    const [store] = stores as [RedisLimitStore];
    const nowMs = Date.now();
    const period = limitPeriod('daily', nowMs);
    const cases = [
      ['seeded before the admission', nowMs + 5_000, 0.75],
      ['seeded after the admission (its database read may hold the cost)', nowMs - 5_000, 0.5],
    ] as const;
    for (const [name, admittedAt, spent] of cases) {
      const hash = keyHash();
      await store.seed(hash, period, 0.5);
      const hold = { keyHash: hash, id: `in-process:replay`, credit: { period, cost: 1 }, tokens: null, stream: false, seed: `before:${admittedAt}` };
      await store.settle(hold, { cost: 0.25, tokens: 0 }, nowMs);
      const [spentKey] = limitKeys(hash, period.id) as [string];
      expect(Number(await clients[0]?.hget(spentKey, 'spent')), name).toBeCloseTo(spent, 9);
    }
  });
});
