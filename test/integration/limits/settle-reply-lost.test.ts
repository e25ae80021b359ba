/**
 * A settlement whose reply from Redis is lost is not counted twice, over HTTP: the gateway reaches its own
 * Redis server through a proxy that, once armed, lets the settlement script through to Redis and cuts the
 * connection instead of passing its reply back (Redis has run the script; the gateway sees a dropped
 * connection). The gateway reconnects and replays the settlement; the key's spending in Redis is the
 * request's cost once, as its generation record says, and the hold is gone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { startOwnRedis, type OwnRedis } from '#test/helpers/redis-server.ts';
import type { FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { SETTLE_SCRIPT } from '#src/limits/redis-limit-scripts.ts';
import { issueLimitedKey, limitsCatalog, listedKey, postWithKey, recordedCost, startAnsweringUpstream } from './limits-support.ts';

/** A proxy to Redis that, when armed, drops the reply to the next settlement script (ioredis sends it by EVALSHA once loaded). */
interface ReplyCutter {
  port: number;
  arm(): void;
  /** How many replies it has cut. */
  cut: number;
  close(): Promise<void>;
}

async function startReplyCutter(redisPort: number): Promise<ReplyCutter> {
  const sha = createHash('sha1').update(SETTLE_SCRIPT).digest('hex');
  const sockets = new Set<Socket>();
  const state = { armed: false, cut: 0 };
  const server: Server = createServer((client) => {
    const upstream = connect(redisPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    let cutNextReply = false;
    client.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      if (state.armed && text.includes(sha)) {
        state.armed = false;
        cutNextReply = true;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (cutNextReply) {
        // Redis has run the script: the reply never reaches the gateway.
        state.cut += 1;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    arm: () => void (state.armed = true),
    get cut() {
      return state.cut;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a settlement whose Redis reply is lost', () => {
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

    cutter.arm();
    expect((await postWithKey(gateway, issued.key)).status).toBe(200);
    await until(() => cutter.cut === 1, 'the settlement reply to be cut');
    await until(() => gateway.logs.some((line) => line.includes('settlements that could not reach redis were replayed')), 'the replay after reconnecting');

    const recorded = await recordedCost(gateway, issued.hash, 2, 'success');
    expect(Number(await inspector.hget(spentKey as string, 'spent'))).toBeCloseTo(recorded, 9);
    expect(await inspector.hlen(`switchboard:limits:{${issued.hash}}:holds`)).toBe(0);
    expect((await listedKey(gateway, issued.hash)).usage.cost).toBeCloseTo(recorded, 9);
  });
});
