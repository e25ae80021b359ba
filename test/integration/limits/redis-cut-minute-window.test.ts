/**
 * A key's per-minute request limit holds across the switch to in-process counting when Redis goes away
 * mid-minute (a TCP proxy in front of Redis, cut): the process's window starts from the buckets Redis
 * returned with the key's last admission, so a key that had used its limit in Redis is refused in process
 * too, instead of getting a fresh minute (up to twice its limit). What the process counts itself goes back
 * into Redis when it returns; what Redis reported is not carried back (Redis has it).
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import type { FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { redisUrlForTests } from '#test/helpers/gateway-process.ts';
import { startTcpProxy, type TcpProxy } from '#test/helpers/tcp-proxy.ts';
import { PATIENT_REDIS_ENV } from '#test/helpers/test-gateway-env.ts';
import { limitKeys } from '#src/limits/redis-limit-scripts.ts';
import { issueLimitedKey, limitsCatalog, postWithKey, startAnsweringUpstream } from './limits-support.ts';

const redisUrl = redisUrlForTests();

async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(redisUrl === undefined)('the per-minute window across a Redis cut', () => {
  let upstream: FakeUpstream;
  let proxy: TcpProxy;
  let gateway: TestGateway;
  let direct: Redis;

  beforeAll(async () => {
    upstream = await startAnsweringUpstream();
    const target = new URL(redisUrl as string);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    direct = new Redis(redisUrl as string);
    gateway = await startTestGateway({ catalogYaml: limitsCatalog(upstream), env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}`, ...PATIENT_REDIS_ENV } });
  }, 90_000);
  afterAll(async () => {
    await gateway?.close();
    await proxy?.close();
    await direct?.quit();
    await upstream?.close();
  });

  async function redisUp(): Promise<boolean> {
    const metrics = await (await fetch(`${gateway.baseUrl}/metrics`, { headers: { authorization: `Bearer ${gateway.management_key}` } })).text();
    return /^switchboard_redis_up 1$/m.test(metrics);
  }

  it('refuses in process a key that had used its requests_per_minute in Redis, and carries back only what the process counted', async () => {
    const issued = await issueLimitedKey(gateway, { requests_per_minute: 3 });
    await until(redisUp, 'redis to be up');
    for (const remaining of ['2', '1']) {
      const call = await postWithKey(gateway, issued.key);
      expect(call.status).toBe(200);
      expect(call.headers.get('anthropic-ratelimit-requests-remaining')).toBe(remaining);
    }
    const [, , , , , requestsKey] = limitKeys(issued.hash, 'none');
    const counted = async () => Object.values(await direct.hgetall(requestsKey as string)).reduce((sum, amount) => sum + Number(amount), 0);
    expect(await counted()).toBe(2);

    // Redis goes away mid-minute: the process counts from the 2 Redis reported, so one more is admitted, then none.
    await proxy.down();
    try {
      await until(async () => !(await redisUp()), 'the gateway to see redis gone');
      const third = await postWithKey(gateway, issued.key);
      expect(third.status).toBe(200);
      expect(third.headers.get('anthropic-ratelimit-requests-remaining')).toBe('0');
      const refused = await postWithKey(gateway, issued.key);
      expect(refused.status, JSON.stringify(refused.body)).toBe(429);
      expect(refused.body.error.message).toContain('3 requests per minute');
      const wait = Number(refused.headers.get('retry-after'));
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(60);
    } finally {
      await proxy.up();
    }

    // Back in Redis: the one request the process admitted joins the 2 Redis had, not the 2 again.
    await until(redisUp, 'redis to be back');
    await until(async () => (await counted()) === 3, 'the process count to be carried into redis');
    const after = await postWithKey(gateway, issued.key);
    expect(after.status).toBe(429);
    expect(await counted()).toBe(3);
  });
});
