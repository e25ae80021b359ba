/**
 * Redis connected but refusing every write (a primary demoted to a replica by a failover while the gateway's
 * address still names it: READONLY; or a full memory under noeviction: OOM). Every request is still
 * answered, key limits count in the process, and the log says so once, not once per request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { startOwnRedis, type OwnRedis } from '#test/helpers/redis-server.ts';
import { issueLimitedKey, limitsCatalog, postWithKey } from '#test/integration/limits/limits-support.ts';

describe('a Redis that refuses writes', () => {
  let redis: OwnRedis;
  let upstream: FakeUpstream;
  let gateway: TestGateway;

  beforeAll(async () => {
    redis = await startOwnRedis();
    upstream = await startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text') });
    gateway = await startTestGateway({ catalogYaml: limitsCatalog(upstream), env: { REDIS_URL: redis.url } });
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await redis?.stop();
    await upstream?.close();
  });

  const logged = (from: number) => gateway.logs.slice(from).map((line) => JSON.parse(line) as { level: string; message: string }).filter((line) => line.level !== 'debug');
  const send = async (count: number, key: string) => {
    for (let index = 0; index < count; index += 1) expect((await postWithKey(gateway, key, { session_id: `s${index % 2}` })).status).toBe(200);
  };

  it('answers every request, counts key limits in the process, and logs it once, not per request', async () => {
    const limited = await issueLimitedKey(gateway, { limit: 1_000, requests_per_minute: 100_000 });
    await send(1, limited.key);
    const admin = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    try {
      // A replica of a primary that is not there: it serves reads and refuses writes.
      await admin.replicaof('127.0.0.1', '1');
      let from = gateway.logs.length;
      await send(6, limited.key);
      expect(logged(from).map((line) => line.message)).toEqual(['key limits counted in this process: redis failed']);

      await admin.replicaof('NO', 'ONE');
      from = gateway.logs.length;
      await send(3, limited.key);
      expect(logged(from).map((line) => line.message)).toContain('key limits are counted in redis again');
      expect(logged(from).filter((line) => line.level === 'warn')).toEqual([]);

      // A second episode is said again, once.
      await admin.replicaof('127.0.0.1', '1');
      from = gateway.logs.length;
      await send(4, limited.key);
      expect(logged(from).filter((line) => line.level === 'warn').map((line) => line.message)).toEqual(['key limits counted in this process: redis failed']);
    } finally {
      await admin.replicaof('NO', 'ONE');
      await admin.quit();
    }
  });
});
