/**
 * A Redis that hangs (connected, answering nothing: here its process stopped with SIGSTOP) under traffic.
 * Every request is answered; the first command that times out sets Redis aside, and it stays aside until it
 * answers a ping again: the log says it is unreachable once and back once, where it said both every two
 * seconds (the end of each one-second suspension announced it back, and the next request's command timed out).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { startOwnRedis, type OwnRedis } from '#test/helpers/redis-server.ts';
import { issueLimitedKey, limitsCatalog, postWithKey } from '#test/integration/limits/limits-support.ts';

const HUNG_MS = 6_000;

describe('a Redis that hangs under traffic', () => {
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

  const connectionLines = (from: number) =>
    gateway.logs
      .slice(from)
      .map((line) => (JSON.parse(line) as { message: string }).message)
      .filter((message) => /^redis is (unreachable|back)/.test(message))
      .map((message) => message.split(':')[0]);

  it('answers every request, and says once that Redis is away and once that it is back', async () => {
    const limited = await issueLimitedKey(gateway, { limit: 1_000, requests_per_minute: 100_000 });
    expect((await postWithKey(gateway, limited.key)).status).toBe(200);
    const from = gateway.logs.length;
    redis.pause();
    try {
      const started = Date.now();
      for (let index = 0; Date.now() - started < HUNG_MS; index += 1) {
        expect((await postWithKey(gateway, limited.key, { session_id: `s${index % 2}` })).status).toBe(200);
      }
      expect(connectionLines(from)).toEqual(['redis is unreachable']);
    } finally {
      redis.resume();
    }
    const deadline = Date.now() + 10_000;
    while (connectionLines(from).length < 2 && Date.now() < deadline) {
      expect((await postWithKey(gateway, limited.key)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(connectionLines(from)).toEqual(['redis is unreachable', 'redis is back']);
  }, 60_000);
});
