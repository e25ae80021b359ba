/**
 * Two gateway instances on one Redis with different request timeouts (SWITCHBOARD_REQUEST_TIMEOUT_MS), so
 * different hold times: the keys that hold a key's open reservations and streams are shared, and an admission
 * on the short-timeout instance must not shorten their life below what the long-timeout instance's hold
 * needs (its reservation would vanish from the credit count while its request still runs).
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { issueInferenceKey, redisUrlForTests } from '#test/helpers/gateway-process.ts';
import { startGatewayPair, type GatewayPair } from '#test/integration/routing/gateway-pair.ts';
import { limitKeys } from '#src/limits/redis-limit-scripts.ts';
import { limitsCatalog, postWithKey } from './limits-support.ts';

const redisUrl = redisUrlForTests();

describe.skipIf(redisUrl === undefined)('key limit holds across instances with different request timeouts (Redis)', () => {
  let upstream: FakeUpstream;
  let pair: GatewayPair;
  let redis: Redis;

  beforeAll(async () => {
    upstream = await startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text') });
    // A holds a request up to 10 minutes (the default), B one second: B's holds keys live ~2 minutes, A's ~12.
    pair = await startGatewayPair({ catalogYaml: limitsCatalog(upstream), env: { REDIS_URL: redisUrl as string }, secondEnv: { SWITCHBOARD_REQUEST_TIMEOUT_MS: '1000' } });
    redis = new Redis(redisUrl as string);
  }, 60_000);
  afterAll(async () => {
    redis?.disconnect();
    await pair?.close();
    await upstream?.close();
  });

  it("an admission on the short-timeout instance leaves the long-timeout instance's holds their full life", async () => {
    const issued = await issueInferenceKey(pair.first, { name: 'holds', limit: 100, max_concurrent_streams: 5 });
    let release!: () => void;
    upstream.enqueue(reply.fixture('anthropic-text', { until: new Promise<void>((resolve) => (release = resolve)) }));
    const onFirst = postWithKey(pair.first, issued.key);
    await expect.poll(() => upstream.requests.length).toBe(1);

    expect((await postWithKey(pair.second, issued.key)).status).toBe(200);

    // A's request is still in flight: its hold, and the keys holding it, must outlive B's shorter hold time.
    const [, holds, holdExpiry, reserved] = limitKeys(issued.hash, 'none');
    for (const key of [holds, holdExpiry, reserved] as string[]) {
      expect(await redis.pttl(key), key).toBeGreaterThan(600_000);
    }
    release();
    expect((await onFirst).status).toBe(200);
  });
});
