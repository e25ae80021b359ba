/**
 * Redis connected but refusing every write (a primary demoted to a replica by a failover while the gateway's
 * address still names it: READONLY; or a full memory under noeviction: OOM). Every request is still
 * answered, key limits count in the process, and the log says so once, not once per request; sticky sessions
 * keep their provider on the pins written in the process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { startOwnRedis, type OwnRedis } from '#test/helpers/redis-server.ts';
import { untilRedisUp } from '#test/helpers/prometheus-scrape.ts';
import { PATIENT_REDIS_ENV } from '#test/helpers/test-gateway-env.ts';
import { issueLimitedKey, LIMITED_PRICES, postWithKey } from '#test/integration/limits/limits-support.ts';
import { anthropicProviderYaml, catalogYaml, messageBody, metadataOf, modelYaml, postMessage, WITH_METADATA } from '#test/integration/routing/routing-support.ts';

describe('a Redis that refuses writes', () => {
  let redis: OwnRedis;
  let upstream: FakeUpstream;
  let cheap: FakeUpstream;
  let gateway: TestGateway;

  beforeAll(async () => {
    redis = await startOwnRedis();
    [upstream, cheap] = await Promise.all([startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text') }), startFakeAnthropic()]);
    const catalog = catalogYaml(
      [anthropicProviderYaml('alpha', upstream), anthropicProviderYaml('beta', cheap)],
      [
        modelYaml('test/limited', [{ provider: 'alpha', model: 'up-limited', price: [LIMITED_PRICES.input, LIMITED_PRICES.output] }]),
        // Beta is the cheaper, so first unless a pin says otherwise.
        modelYaml('test/sticky', [
          { provider: 'alpha', model: 'up-sticky-alpha', price: [50, 50] },
          { provider: 'beta', model: 'up-sticky-beta', price: [0.001, 0.001] },
        ]),
      ],
    );
    // A loaded machine must not time a command out (that is another failure, which the gateway handles in the
    // process by design), and the gateway must be on Redis before the first request: a refusal is what is tested.
    gateway = await startTestGateway({ catalogYaml: catalog, env: { REDIS_URL: redis.url, ...PATIENT_REDIS_ENV } });
    await untilRedisUp(gateway.baseUrl, gateway.management_key);
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await redis?.stop();
    await Promise.all([upstream?.close(), cheap?.close()]);
  });

  // The key limiter's lines only: on a loaded machine a command may also time out, which the connection reports.
  const logged = (from: number) =>
    gateway.logs
      .slice(from)
      .map((line) => JSON.parse(line) as { level: string; message: string })
      .filter((line) => line.level !== 'debug' && line.message.startsWith('key limits'));
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

  const stickyPins = async (admin: Redis) => {
    const keys = await admin.keys('switchboard:sticky:*');
    const values = keys.length > 0 ? await admin.mget(...keys) : [];
    return values.map((value) => JSON.parse(value ?? 'null') as { model?: string }).filter((pin) => pin?.model === 'test/sticky');
  };

  it('keeps a session on the provider that served it, on the pin written in the process', async () => {
    const admin = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    const session = { session_id: 'refused-pin' };
    const served = async () => {
      const call = await postMessage(gateway, messageBody('test/sticky', session), WITH_METADATA);
      expect(call.status, JSON.stringify(call.body)).toBe(200);
      cheap.clear();
      return metadataOf(call).attempts.map((attempt) => `${attempt.provider} ${attempt.status}`);
    };
    try {
      await admin.replicaof('127.0.0.1', '1');
      cheap.enqueue(reply.error(500));
      expect(await served()).toEqual(['Beta Cloud server_error', 'Alpha Cloud success']);
      // Pinned to Alpha in the process: Redis refused the pin, and has none.
      cheap.enqueue(reply.fixture('anthropic-text'));
      expect(await served()).toEqual(['Alpha Cloud success']);
      await admin.replicaof('NO', 'ONE');
      expect(await stickyPins(admin)).toEqual([]);
      cheap.enqueue(reply.fixture('anthropic-text'));
      expect(await served()).toEqual(['Alpha Cloud success']);
      // Written to Redis this time: the session's pin is shared again.
      expect(await stickyPins(admin)).toEqual([{ provider: 'alpha', credentialId: null, model: 'test/sticky' }]);
    } finally {
      await admin.replicaof('NO', 'ONE');
      await admin.quit();
    }
  });
});
