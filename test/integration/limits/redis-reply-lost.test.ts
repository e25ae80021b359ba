/**
 * Limit scripts whose reply from Redis is lost, over HTTP: the gateway reaches its own Redis server through a
 * proxy that, once armed, lets a script through to Redis and cuts the connection instead of passing its reply
 * back (Redis has run the script; the gateway sees a dropped connection). A settlement is replayed after the
 * gateway reconnects and counted once: the key's spending in Redis is the request's cost, as its generation
 * record says, and the hold is gone. An admission is made again in process (failing open), and what Redis
 * took for it (a stream slot, a reservation) is given back once Redis is there, not held until it expires.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { startOwnRedis, type OwnRedis } from '#test/helpers/redis-server.ts';
import { startReplyCutter, type ReplyCutter } from '#test/helpers/redis-reply-cutter.ts';
import { reply, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { ADMIT_SCRIPT } from '#src/limits/redis-admission-scripts.ts';
import { SETTLE_SCRIPT } from '#src/limits/redis-limit-scripts.ts';
import { issueLimitedKey, limitsCatalog, listedKey, postWithKey, recordedCost, startAnsweringUpstream, streamWithKey } from './limits-support.ts';

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('limit scripts whose Redis reply is lost', () => {
  let redis: OwnRedis;
  let cutter: ReplyCutter;
  let upstream: FakeUpstream;
  let gateway: TestGateway;
  let inspector: Redis;

  beforeAll(async () => {
    redis = await startOwnRedis();
    cutter = await startReplyCutter(redis.port);
    upstream = await startAnsweringUpstream();
    gateway = await startTestGateway({ catalogYaml: limitsCatalog(upstream), env: { REDIS_URL: `redis://127.0.0.1:${cutter.port}`, SWITCHBOARD_RECORD_FLUSH_MS: '50' } });
    inspector = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  }, 60_000);
  afterAll(async () => {
    inspector?.disconnect();
    await gateway?.close();
    await cutter?.close();
    await redis?.stop();
    await upstream?.close();
  });

  it('counts the request’s cost once in Redis after the gateway reconnects and replays it', async () => {
    const issued = await issueLimitedKey(gateway, { limit: 10, limit_reset: 'daily' });
    // A first request seeds the spending in Redis and settles normally.
    expect((await postWithKey(gateway, issued.key)).status).toBe(200);
    const [spentKey] = await inspector.keys(`switchboard:limits:{${issued.hash}}:spent:*`);
    expect(spentKey).toBeDefined();
    await until(async () => Number(await inspector.hget(spentKey as string, 'spent')) > 0, 'the first settlement');

    cutter.arm(SETTLE_SCRIPT);
    expect((await postWithKey(gateway, issued.key)).status).toBe(200);
    const cuts = cutter.cut;
    await until(() => cutter.cut === cuts + 1, 'the settlement reply to be cut');
    await until(() => gateway.logs.some((line) => line.includes('settlements that could not reach redis were replayed')), 'the replay after reconnecting');

    const recorded = await recordedCost(gateway, issued.hash, 2, 'success');
    expect(Number(await inspector.hget(spentKey as string, 'spent'))).toBeCloseTo(recorded, 9);
    expect(await inspector.hlen(`switchboard:limits:{${issued.hash}}:holds`)).toBe(0);
    expect((await listedKey(gateway, issued.hash)).usage.cost).toBeCloseTo(recorded, 9);
  });

  it('gives back the stream slot and reservation a lost admission took in Redis once it is back', async () => {
    const issued = await issueLimitedKey(gateway, { limit: 10, limit_reset: 'daily', max_concurrent_streams: 1 });
    const base = `switchboard:limits:{${issued.hash}}`;
    // A first stream seeds the spending and loads the admission script (later calls go by EVALSHA).
    expect((await streamWithKey(gateway, issued.key)).status).toBe(200);
    await until(async () => (await inspector.zcard(`${base}:streams`)) === 0, 'the first stream to settle in Redis');

    const cuts = cutter.cut;
    cutter.arm(ADMIT_SCRIPT);
    const lost = await streamWithKey(gateway, issued.key);
    expect(lost.status).toBe(200);
    expect(lost.events.at(-1)?.event).toBe('message_stop');
    expect(cutter.cut).toBe(cuts + 1);

    // The key's one stream slot is free again for every instance: nothing of the lost admission is left.
    await until(async () => (await inspector.zcard(`${base}:streams`)) === 0 && (await inspector.hlen(`${base}:holds`)) === 0, 'the lost admission to be given back in Redis', 5_000);
    const next = await streamWithKey(gateway, issued.key);
    expect(next.error).toBeUndefined();
    expect(next.status).toBe(200);
    await until(async () => (await inspector.get(`${base}:reserved`)) === null, 'nothing to be left reserved once it settled');
  });

  it('settles a lost admission’s stream still open when Redis is back once, to its real cost, not carried into Redis', async () => {
    const issued = await issueLimitedKey(gateway, { limit: 10, limit_reset: 'daily', max_concurrent_streams: 2 });
    const base = `switchboard:limits:{${issued.hash}}`;
    expect((await streamWithKey(gateway, issued.key)).status).toBe(200);
    await until(async () => (await inspector.zcard(`${base}:streams`)) === 0, 'the first stream to settle in Redis');

    // The admission's reply is cut; the stream, admitted again in process, stays open across the reconnection.
    let release: () => void = () => undefined;
    upstream.enqueue(reply.fixture('anthropic-text', { until: new Promise<void>((resolve) => (release = resolve)) }));
    const from = gateway.logs.length;
    const cuts = cutter.cut;
    cutter.arm(ADMIT_SCRIPT);
    const held = streamWithKey(gateway, issued.key);
    await until(() => cutter.cut === cuts + 1, 'the admission reply to be cut');
    await until(() => gateway.logs.slice(from).some((line) => line.includes('settlements that could not reach redis were replayed')), 'the replay after reconnecting');
    release();
    expect((await held).status).toBe(200);

    // Its cost reaches the shared spending (replayed from the process), and nothing is left held in Redis.
    const recorded = await recordedCost(gateway, issued.hash, 2, 'success');
    const [spentKey] = await inspector.keys(`${base}:spent:*`);
    await until(async () => Math.abs(Number(await inspector.hget(spentKey as string, 'spent')) - recorded) < 1e-9, `the shared spending to reach ${recorded}`);
    expect(await inspector.zcard(`${base}:streams`)).toBe(0);
    expect(await inspector.hlen(`${base}:holds`)).toBe(0);
  });
});
