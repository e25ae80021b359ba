/**
 * A Redis server started by the test, killed mid-traffic and started again, under a gateway process using it
 * for sticky sessions, key limits and circuit breakers. Every request succeeds throughout: while Redis is
 * away, pins and limit counts live in the process (failing open), with one warning line and
 * `switchboard_redis_up 0`, `switchboard_redis_fallbacks_total` counting; once it is back the gateway has
 * reconnected on its own and shares its state through it again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { issueInferenceKey, processStore, startGatewayProcess, type GatewayProcess, type ProcessStore } from '#test/helpers/gateway-process.ts';
import { startOwnRedis, type OwnRedis } from '#test/helpers/redis-server.ts';
import { scrapeMetrics } from '#test/helpers/prometheus-scrape.ts';
import { limitsCatalog, listedKey, postWithKey } from '#test/integration/limits/limits-support.ts';

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a Redis outage under traffic', () => {
  let redis: OwnRedis;
  let upstream: FakeUpstream;
  let store: ProcessStore;
  let gateway: GatewayProcess;

  beforeAll(async () => {
    redis = await startOwnRedis();
    upstream = await startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text', { delayMs: 5 }) });
    store = await processStore('pglite');
    gateway = await startGatewayProcess({ env: { ...store.env, REDIS_URL: redis.url }, catalogYaml: limitsCatalog(upstream) });
  }, 60_000);
  afterAll(async () => {
    await gateway?.stop();
    await redis?.stop();
    await store?.drop();
    await upstream?.close();
  });

  it('keeps every request succeeding, counts in process while Redis is away, and reconnects on its own', async () => {
    const limited = await issueInferenceKey(gateway, { limit: 1_000, requests_per_minute: 100_000, max_concurrent_streams: 50 });
    const statuses: number[] = [];
    let traffic = true;
    // Four clients, each in its own sticky session, sending one request after another for the whole test.
    const clients = Array.from({ length: 4 }, async (_, client) => {
      while (traffic) {
        const call = await postWithKey(gateway, limited.key, { session_id: `client-${client}` });
        statuses.push(call.status);
        if (call.status !== 200) throw new Error(`a request failed during the Redis outage: ${call.status} ${JSON.stringify(call.body)}`);
      }
    });
    const inspector = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    inspector.on('error', () => undefined);
    try {
      await until(() => statuses.length >= 40, 'traffic before the outage');
      await inspector.connect();
      expect(await inspector.keys(`switchboard:limits:{${limited.hash}}:*`)).not.toHaveLength(0);
      expect(await inspector.keys('switchboard:sticky:*')).not.toHaveLength(0);
      inspector.disconnect();

      // Read before the kill, not after: requests admitted in process while the kill is awaited can finish
      // before it resolves, and the bound below must count them among the outage's.
      const atOutage = statuses.length;
      // So must what the process counted on its own before the outage: a Redis command that timed out (a loaded
      // machine) suspends Redis for a moment, and those admissions stay in the process's minute window.
      const fellBackBefore = (await scrapeMetrics(gateway.baseUrl, gateway.management_key)).value('switchboard_redis_fallbacks_total', { component: 'key_limits' });
      await redis.kill();
      await until(() => gateway.logs.some((line) => line.includes('redis is unreachable')), 'the outage warning');
      await until(() => statuses.length >= atOutage + 60, 'traffic during the outage');
      const during = await scrapeMetrics(gateway.baseUrl, gateway.management_key);
      expect(during.value('switchboard_redis_up')).toBe(0);
      expect(during.value('switchboard_redis_fallbacks_total', { component: 'key_limits' })).toBeGreaterThan(0);
      expect(during.value('switchboard_redis_fallbacks_total', { component: 'sticky_sessions' })).toBeGreaterThan(0);
      // The process counts on its own meanwhile, from the minute's counts Redis last returned (so a key cannot
      // make its limit twice over across the switch): the requests before the outage and those since.
      const counted = (await listedKey(gateway, limited.hash)).usage.requests_last_minute as number;
      const redisLines = gateway.logs.filter((line) => /redis/i.test(line)).join('\n');
      expect(counted, redisLines).toBeGreaterThanOrEqual(atOutage - 4 - fellBackBefore);
      expect(counted, redisLines).toBeLessThanOrEqual(statuses.length + 4);

      await redis.restart();
      await until(() => gateway.logs.some((line) => line.includes('redis is back')), 'the reconnection');
      // The endpoint statistics' own connections say so too (before, their return was never logged).
      await until(() => gateway.logs.some((line) => line.includes('redis for endpoint statistics is back')), 'the statistics reconnection');
      const atReturn = statuses.length;
      await until(() => statuses.length >= atReturn + 40, 'traffic after the outage');
      const after = await scrapeMetrics(gateway.baseUrl, gateway.management_key);
      expect(after.value('switchboard_redis_up')).toBe(1);
      // Pins and counts are in the new (empty) Redis again.
      const fresh = new Redis(redis.url, { maxRetriesPerRequest: 1 });
      try {
        expect(await fresh.keys(`switchboard:limits:{${limited.hash}}:*`)).not.toHaveLength(0);
        expect(await fresh.keys('switchboard:sticky:*')).not.toHaveLength(0);
      } finally {
        fresh.disconnect();
      }
    } finally {
      traffic = false;
      await Promise.all(clients);
    }
    expect(statuses.every((status) => status === 200)).toBe(true);
    // One warning for the outage, not one per request. A command that times out on a loaded machine (1 s)
    // suspends Redis for a moment and is reported as an outage of its own, so a second or third may appear.
    const warnings = gateway.logs.filter((line) => line.includes('redis is unreachable'));
    expect(warnings.length, gateway.logs.filter((line) => /redis/i.test(line)).join('\n')).toBeGreaterThanOrEqual(1);
    expect(warnings.length, gateway.logs.filter((line) => /redis/i.test(line)).join('\n')).toBeLessThanOrEqual(3);
    // Likewise the endpoint statistics: each outage of theirs logged once (two connections, many retries), and
    // its end once, when both connections are back.
    const statsDown = gateway.logs.filter((line) => line.includes('redis for endpoint statistics is unreachable'));
    const statsBack = gateway.logs.filter((line) => line.includes('redis for endpoint statistics is back'));
    expect(statsDown.length, [...statsDown, ...statsBack].join('\n')).toBeGreaterThanOrEqual(1);
    expect(statsDown.length, [...statsDown, ...statsBack].join('\n')).toBeLessThanOrEqual(3);
    expect(statsBack.length, [...statsDown, ...statsBack].join('\n')).toBe(statsDown.length);
  }, 90_000);
});
