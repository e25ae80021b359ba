import { describe, expect, it } from 'vitest';
import { MemoryLimitStore } from '#src/limits/memory-limit-store.ts';
import { limitPeriod } from '#src/limits/limit-period.ts';
import type { AdmissionRequest } from '#src/limits/limit-store.ts';

const NOW = Date.parse('2025-11-21T10:00:00Z');
const PERIOD = limitPeriod('monthly', NOW);
const KEY = 'k'.repeat(64);

function request(id: string, overrides: Partial<AdmissionRequest> = {}): AdmissionRequest {
  return { keyHash: KEY, id, nowMs: NOW, credit: null, requestsPerMinute: null, tokens: null, streams: null, expiresAtMs: NOW + 60_000, ...overrides };
}

describe('MemoryLimitStore', () => {
  it('asks for the period to be seeded first, then admits while spending plus reservations stay under the limit', async () => {
    const store = new MemoryLimitStore();
    const credit = { limit: 1, period: PERIOD, cost: 0.4 };
    expect(store.admitNow(request('a', { credit }))).toEqual({ ok: false, limit: 'seed' });
    await store.seed(KEY, PERIOD, 0.1);
    expect(store.admitNow(request('a', { credit }))).toEqual({ ok: true, seed: 'process' });
    expect(store.admitNow(request('b', { credit }))).toEqual({ ok: true, seed: 'process' });
    // 0.1 spent + 0.8 reserved < 1: one more, which may take it over by its own worst case.
    expect(store.admitNow(request('c', { credit }))).toEqual({ ok: true, seed: 'process' });
    expect(store.admitNow(request('d', { credit }))).toEqual({ ok: false, limit: 'credit', spent: 0.1, reserved: expect.closeTo(1.2, 9) });
    // Settling gives back what was not used.
    for (const id of ['a', 'b', 'c']) await store.settle({ keyHash: KEY, id, credit: { period: PERIOD, cost: 0.4 }, tokens: null, stream: false, seed: 'process' }, { cost: 0.05, tokens: 0 }, NOW);
    expect(store.admitNow(request('d', { credit }))).toEqual({ ok: true, seed: 'process' });
    expect((await store.usage({ keyHash: KEY, period: PERIOD, requests: false, tokens: false, streams: false, nowMs: NOW })).spent).toBeCloseTo(0.25, 9);
  });

  it('lets reservations of requests that never settled expire', async () => {
    const store = new MemoryLimitStore();
    await store.seed(KEY, PERIOD, 0);
    const credit = { limit: 1, period: PERIOD, cost: 2 };
    expect(store.admitNow(request('lost', { credit })).ok).toBe(true);
    expect(store.admitNow(request('next', { credit, nowMs: NOW + 1_000 })).ok).toBe(false);
    expect(store.admitNow(request('next', { credit, nowMs: NOW + 60_001 })).ok).toBe(true);
  });

  it('counts requests and streams exactly, and refuses nothing it did not take', async () => {
    const store = new MemoryLimitStore();
    const results = Array.from({ length: 5 }, (_, index) => store.admitNow(request(`r${index}`, { requestsPerMinute: 3, streams: { max: 10 } })));
    expect(results.map((result) => result.ok)).toEqual([true, true, true, false, false]);
    expect(results[3]).toEqual({ ok: false, limit: 'requests', retryAfterMs: 60_000 });
    // The refused requests took no stream slot.
    expect((await store.usage({ keyHash: KEY, period: null, requests: true, tokens: false, streams: true, nowMs: NOW })).streams).toBe(3);
    const streams = Array.from({ length: 4 }, (_, index) => store.admitNow(request(`s${index}`, { streams: { max: 5 } })));
    expect(streams.map((result) => (result.ok ? 'ok' : result.limit))).toEqual(['ok', 'ok', 'streams', 'streams']);
    await store.settle({ keyHash: KEY, id: 's0', credit: null, tokens: null, stream: true, seed: null }, { cost: 0, tokens: 0 }, NOW);
    expect(store.admitNow(request('s4', { streams: { max: 5 } })).ok).toBe(true);
  });

  it('replaces reserved tokens by the real ones in the second they were counted', async () => {
    const store = new MemoryLimitStore();
    const tokens = { limit: 100, amount: 90 };
    expect(store.admitNow(request('t1', { tokens })).ok).toBe(true);
    expect(store.admitNow(request('t2', { tokens })).ok).toBe(true);
    expect(store.admitNow(request('t3', { tokens }))).toEqual({ ok: false, limit: 'tokens', used: 180, retryAfterMs: 60_000 });
    const second = Math.floor(NOW / 1000);
    await store.settle({ keyHash: KEY, id: 't1', credit: null, tokens: { second, amount: 90 }, stream: false, seed: null }, { cost: 0, tokens: 5 }, NOW);
    await store.settle({ keyHash: KEY, id: 't2', credit: null, tokens: { second, amount: 90 }, stream: false, seed: null }, { cost: 0, tokens: 5 }, NOW);
    expect((await store.usage({ keyHash: KEY, period: null, requests: false, tokens: true, streams: false, nowMs: NOW })).tokens).toBe(10);
    expect(store.admitNow(request('t3', { tokens })).ok).toBe(true);
  });

  it('checks by the admission\'s rules and takes nothing: the same refusals, and the counts unchanged', async () => {
    const store = new MemoryLimitStore();
    const credit = { limit: 1, period: PERIOD, cost: 0.6 };
    const all = (id: string, overrides: Partial<AdmissionRequest> = {}) => request(id, { credit, requestsPerMinute: 2, tokens: { limit: 100, amount: 40 }, streams: { max: 1 }, ...overrides });
    expect(await store.check(all('c'))).toEqual({ ok: false, limit: 'seed' });
    await store.seed(KEY, PERIOD, 0);
    for (let index = 0; index < 5; index += 1) expect(await store.check(all(`c${index}`))).toEqual({ ok: true });
    const usage = () => store.usage({ keyHash: KEY, period: PERIOD, requests: true, tokens: true, streams: true, nowMs: NOW });
    expect(await usage()).toEqual({ spent: 0, requests: 0, tokens: 0, streams: 0 });
    // Each limit in turn: the check refuses with what the admission would.
    // An admission tells the windows as it left them (this request counted): the answer's rate-limit headers.
    expect(store.admitNow(all('a'))).toEqual({ ok: true, seed: 'process', window: { requests: 1, tokens: 40 } });
    expect(await store.check(all('c'))).toEqual(store.admitNow(all('c')));
    expect(await store.check(all('c', { streams: null }))).toEqual({ ok: true });
    expect(store.admitNow(all('b', { streams: null }))).toEqual({ ok: true, seed: 'process', window: { requests: 2, tokens: 80 } });
    expect(await store.check(all('c', { streams: null }))).toEqual({ ok: false, limit: 'credit', spent: 0, reserved: expect.closeTo(1.2, 9) });
    expect(await store.check(all('c', { streams: null, credit: null }))).toEqual({ ok: false, limit: 'requests', retryAfterMs: 60_000 });
    expect(await store.check(all('c', { streams: null, credit: null, requestsPerMinute: null, tokens: { limit: 80, amount: 0 } }))).toEqual({ ok: false, limit: 'tokens', used: 80, retryAfterMs: 60_000 });
    expect(await usage()).toEqual({ spent: 0, requests: 2, tokens: 80, streams: 1 });
  });

  it('gives the window counts to carry into Redis, counts a mirrored Redis hold until it settles, and forgets a carried key', async () => {
    const store = new MemoryLimitStore();
    const tokens = { limit: 1_000, amount: 70 };
    expect(store.admitNow(request('old', { requestsPerMinute: 10, tokens })).ok).toBe(true);
    expect(store.admitNow(request('new', { requestsPerMinute: 10, tokens, nowMs: NOW + 30_000 })).ok).toBe(true);
    const second = Math.floor(NOW / 1000);
    // At NOW + 65 s the first second has left the window: only the second request is carried.
    expect(store.windowCounts(KEY, NOW + 65_000)).toEqual({ requests: [[second + 30, 1]], tokens: [[second + 30, 70]] });
    expect(store.windowCounts('other', NOW)).toEqual({ requests: [], tokens: [] });

    // A stream slot held in Redis when it went away counts here until it settles.
    store.mirror({ keyHash: KEY, id: 'redis-stream', credit: null, tokens: null, stream: true, seed: 'seed-1' }, NOW + 60_000);
    expect(store.admitNow(request('second-stream', { streams: { max: 1 } }))).toEqual({ ok: false, limit: 'streams', open: 1 });
    await store.settle({ keyHash: KEY, id: 'redis-stream', credit: null, tokens: null, stream: true, seed: 'seed-1' }, { cost: 0, tokens: 0 }, NOW);
    expect(store.admitNow(request('second-stream', { streams: { max: 1 } })).ok).toBe(true);

    expect(store.keyHashes()).toEqual([KEY]);
    store.forget(KEY);
    expect(store.keyHashes()).toEqual([]);
  });

  it('starts a window from the buckets Redis last reported: counted until they leave the minute, never carried back', async () => {
    const store = new MemoryLimitStore();
    const second = Math.floor(NOW / 1000);
    // Redis had 2 requests 40 s ago and 1 at NOW (a limit of 3): the process admits none until the first leave.
    store.seedWindows(KEY, { requests: `${second - 40}:2,${second}:1,${second - 90}:5`, tokens: `${second}:50`, atMs: NOW }, NOW);
    const limited = (id: string, nowMs: number) => request(id, { requestsPerMinute: 3, tokens: { limit: 1_000, amount: 10 }, nowMs });
    expect(store.admitNow(limited('a', NOW + 1_000))).toEqual({ ok: false, limit: 'requests', retryAfterMs: 19_000 });
    expect(store.admitNow(limited('b', NOW + 20_000))).toEqual({ ok: true, seed: null, window: { requests: 2, tokens: 60 } });
    expect((await store.usage({ keyHash: KEY, period: null, requests: true, tokens: true, streams: false, nowMs: NOW + 20_000 })).requests).toBe(2);
    // Only what the process counted itself goes back to Redis.
    expect(store.windowCounts(KEY, NOW + 20_000)).toEqual({ requests: [[second + 20, 1]], tokens: [[second + 20, 10]] });
    // A Redis hold's tokens settle in the reported window.
    await store.settle({ keyHash: KEY, id: 'redis-hold', credit: null, tokens: { second, amount: 50 }, stream: false, seed: null }, { cost: 0, tokens: 20 }, NOW + 20_000, 'seen');
    expect((await store.usage({ keyHash: KEY, period: null, requests: false, tokens: true, streams: false, nowMs: NOW + 20_000 })).tokens).toBe(30);
  });
});
