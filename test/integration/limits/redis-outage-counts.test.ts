/**
 * Limit counts across a Redis outage, over HTTP, with a Redis server of the test's own killed and started
 * again (empty) mid-traffic. While Redis is away the gateway counts in process, the stream it had open in
 * Redis included (a second stream is refused); once Redis is back, what the process counted (requests in the
 * window, the streams and reservations still open) is carried into Redis, so the limits go on from there
 * instead of starting over, and a stream admitted during the outage gives its slot back in Redis when it ends.
 * A cost settled in process for a key whose spending another instance seeded in Redis (this one never saw its
 * seed) joins that spending once Redis answers again: it was seeded before the request, so it lacks the cost.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { startOwnRedis, type OwnRedis } from '#test/helpers/redis-server.ts';
import { reply, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { limitPeriod } from '#src/limits/limit-period.ts';
import { limitKeys } from '#src/limits/redis-limit-scripts.ts';
import { issueLimitedKey, limitsCatalog, listedKey, postWithKey, recordedCost, startAnsweringUpstream, streamWithKey, type KeyStream } from './limits-support.ts';

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A stream the fake holds open (no answer yet) until `release` is called. */
function heldStream(upstream: FakeUpstream, gateway: TestGateway, key: string): { ended: Promise<KeyStream>; release: () => void } {
  let release: () => void = () => undefined;
  const until = new Promise<void>((resolve) => (release = resolve));
  upstream.enqueue(reply.fixture('anthropic-text', { until }));
  return { ended: streamWithKey(gateway, key), release };
}

describe('limit counts across a Redis outage', () => {
  let redis: OwnRedis;
  let upstream: FakeUpstream;
  let gateway: TestGateway;

  beforeAll(async () => {
    redis = await startOwnRedis();
    upstream = await startAnsweringUpstream();
    gateway = await startTestGateway({ catalogYaml: limitsCatalog(upstream), env: { REDIS_URL: redis.url, SWITCHBOARD_RECORD_FLUSH_MS: '50' } });
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await redis?.stop();
    await upstream?.close();
  });

  it('counts open streams in process during the outage and carries the process counts into Redis when it returns', async () => {
    const issued = await issueLimitedKey(gateway, { limit: 10, limit_reset: 'daily', requests_per_minute: 5, max_concurrent_streams: 2 });
    const base = `switchboard:limits:{${issued.hash}}`;

    // One stream open in Redis, then Redis dies.
    const first = heldStream(upstream, gateway, issued.key);
    await until(() => upstream.requests.length === 1, 'the first stream to reach the upstream');
    await redis.kill();
    await until(() => gateway.logs.some((line) => line.includes('redis is unreachable')), 'the outage');

    // In process: the open stream still counts, so one more stream fits and a third does not.
    const second = heldStream(upstream, gateway, issued.key);
    await until(() => upstream.requests.length === 2, 'the second stream to reach the upstream');
    const refused = await streamWithKey(gateway, issued.key);
    expect(refused.status, JSON.stringify(refused.error)).toBe(429);
    expect(refused.error?.error.message).toMatch(/2 concurrent streams are open/);
    expect((await postWithKey(gateway, issued.key)).status).toBe(200);

    // Redis is back, empty: the process's counts (the second stream, two requests in the window) and the
    // stream still open from before are carried into it.
    await redis.restart();
    await until(() => gateway.logs.some((line) => line.includes('key limit counts made in process were carried into redis')), 'the carry-over');
    const inspector = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    try {
      expect(await inspector.zcard(`${base}:streams`)).toBe(2);
      expect(await inspector.hlen(`${base}:holds`)).toBe(2);
      const requests = Object.values(await inspector.hgetall(`${base}:requests`)).reduce((sum, count) => sum + Number(count), 0);
      expect(requests).toBe(2);
      const usage = (await listedKey(gateway, issued.hash)).usage;
      expect(usage.requests_last_minute).toBe(2);
      expect(usage.concurrent_streams).toBe(2);

      // The limits go on from the carried counts: no third stream, and three requests left of five, not five.
      const third = await streamWithKey(gateway, issued.key);
      expect(third.status, JSON.stringify(third.error)).toBe(429);
      for (let request = 0; request < 3; request += 1) expect((await postWithKey(gateway, issued.key)).status).toBe(200);
      const over = await postWithKey(gateway, issued.key);
      expect(over.status).toBe(429);
      expect(over.body.error.message).toMatch(/5 requests per minute/);

      // The streams end: their slots and reservations are given back in Redis (none left to expire).
      first.release();
      second.release();
      expect((await first.ended).status).toBe(200);
      expect((await second.ended).status).toBe(200);
      await until(async () => (await inspector.zcard(`${base}:streams`)) === 0, 'the stream slots to be given back');
      await until(async () => (await inspector.hlen(`${base}:holds`)) === 0, 'the reservations to be given back');
    } finally {
      inspector.disconnect();
    }
  }, 90_000);

  it('counts a cost settled in process into spending another instance seeded before the request', async () => {
    const issued = await issueLimitedKey(gateway, { limit: 10, limit_reset: 'daily' });
    const other = await issueLimitedKey(gateway, { requests_per_minute: 1_000 });
    const [spentKey] = limitKeys(issued.hash, limitPeriod('daily', Date.now()).id) as [string];
    const inspector = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    try {
      // Another instance seeded the period's spending (1 USD) a moment ago; this one never saw the seed.
      await inspector.hset(spentKey, 'spent', '1', 'seed', 'seeded-by-another-instance', 'at', String(Date.now() - 1_000));
      redis.pause();
      try {
        // Redis hangs: the admission times out and the request is admitted, answered and settled in process.
        expect((await postWithKey(gateway, issued.key)).status).toBe(200);
      } finally {
        redis.resume();
      }
      const cost = await recordedCost(gateway, issued.hash, 1, 'success');
      expect(cost).toBeGreaterThan(0);
      // Another key's requests find Redis answering again; the settlement is replayed into the spending.
      await until(async () => {
        await postWithKey(gateway, other.key);
        return Math.abs(Number(await inspector.hget(spentKey, 'spent')) - (1 + cost)) < 1e-9;
      }, `the spending to be 1 + ${cost}`);
      await until(async () => (await inspector.hlen(`switchboard:limits:{${issued.hash}}:holds`)) === 0, 'no hold left');
      expect(Number(await inspector.hget(spentKey, 'spent'))).toBeCloseTo(1 + cost, 9);
    } finally {
      inspector.disconnect();
    }
  }, 60_000);
});
