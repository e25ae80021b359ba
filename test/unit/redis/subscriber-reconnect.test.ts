/**
 * The gateway's two Redis subscriptions (endpoint statistics, shared circuits) across a reconnection, against
 * a real Redis behind a proxy. They subscribe again themselves, so messages published after the return reach
 * them; and a resubscription the connection closes on before Redis answers (the proxy swallows it, then the
 * gateway shuts down, or the connection is cut again) is no unhandled rejection. ioredis's own resubscription left its promise unhandled:
 * such a rejection failed a CI run, and would end a process run with `--unhandled-rejections=throw`. A Redis
 * that stopped answering does not hold the shutdown either: before, the subscriber's QUIT waited forever.
 */
import { randomUUID } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '#src/logger.ts';
import { RedisConnection } from '#src/redis/redis-connection.ts';
import { RedisCircuitShare } from '#src/routing/circuit-breaker/redis-circuit-share.ts';
import { RedisSharedEndpointStats } from '#src/routing/redis-endpoint-stats.ts';

const redisUrl = process.env.REDIS_URL;
const inCi = process.env.CI === 'true';

/** A proxy to Redis that can cut every connection, and swallow the SUBSCRIBE commands sent after that. */
async function startSubscribeSwallower(target: URL) {
  const sockets = new Set<Socket>();
  const state = { swallow: false, swallowed: 0 };
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    let hung = false;
    client.on('data', (chunk: Buffer) => {
      // ioredis sends SUBSCRIBE on its own once the connection is ready, never with another command. From
      // then on the connection hangs, as a Redis that stopped answering.
      if (state.swallow && /\$9\r\nSUBSCRIBE\r\n/i.test(chunk.toString('latin1'))) {
        hung = true;
        state.swallowed += 1;
      }
      if (!hung) upstream.write(chunk);
    });
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(server.address() as { port: number }).port}`,
    state,
    cut() {
      for (const socket of sockets) socket.destroy();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe.skipIf(redisUrl === undefined && !inCi)('Redis subscriptions across a reconnection', () => {
  const logger = createLogger({ level: 'error' });
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);
  let publisher: Redis;

  beforeAll(() => {
    if (redisUrl === undefined) throw new Error('CI=true but REDIS_URL is not set');
    publisher = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(() => {
    unhandled.length = 0;
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await publisher?.quit();
  });

  async function settle(): Promise<void> {
    // Unhandled rejections are reported after the microtask queue drains.
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  it('endpoint statistics: subscribed again after the return, and no unhandled rejection when it is cut or closed before Redis answers', { timeout: 30_000 }, async () => {
    const proxy = await startSubscribeSwallower(new URL(redisUrl as string));
    const channel = `switchboard:test:resubscribe:${randomUUID()}`;
    const stats = new RedisSharedEndpointStats({ url: proxy.url, logger, channel, flushEveryMs: 10 });
    try {
      await stats.ready();
      const sample = (latencyMs: number) => JSON.stringify({ from: 'another-process', samples: [{ model: 'test/m', provider: 'alpha', latencyMs }] });

      proxy.cut();
      // Back and subscribed again: a sample published now reaches it.
      await expect.poll(async () => (await publisher.publish(channel, sample(100))) > 0, { timeout: 10_000 }).toBe(true);
      await expect.poll(() => stats.snapshot.get('test/m|alpha')?.latencyMs, { timeout: 5_000 }).toBe(100);

      proxy.state.swallow = true;
      proxy.cut();
      await expect.poll(() => proxy.state.swallowed, { timeout: 10_000 }).toBeGreaterThan(0);
      // Cut again while Redis has not answered: in a running gateway this rejection ended the process.
      proxy.cut();
      await expect.poll(() => proxy.state.swallowed, { timeout: 10_000 }).toBeGreaterThan(1);
    } finally {
      const closing = Date.now();
      await stats.close();
      expect(Date.now() - closing).toBeLessThan(5_000);
      await proxy.close();
    }
    await settle();
    expect(unhandled.map(String)).toEqual([]);
  });

  it('shared circuits: subscribed again after the return, and no unhandled rejection when it is cut or closed before Redis answers', { timeout: 30_000 }, async () => {
    const proxy = await startSubscribeSwallower(new URL(redisUrl as string));
    const redis = new RedisConnection({ url: proxy.url, logger });
    const share = new RedisCircuitShare(redis);
    const heard: string[] = [];
    try {
      expect(await redis.ready(5_000)).toBe(true);
      share.subscribe((key) => heard.push(key));
      const key = `test/resubscribe-${randomUUID()}|alpha`;
      const message = JSON.stringify({ key, until: Date.now() + 60_000 });

      proxy.cut();
      await expect.poll(async () => (await publisher.publish('switchboard:circuits', message)) > 0 && heard.includes(key), { timeout: 10_000 }).toBe(true);

      proxy.state.swallow = true;
      proxy.cut();
      await expect.poll(() => proxy.state.swallowed, { timeout: 10_000 }).toBeGreaterThan(0);
      // Cut again while Redis has not answered: in a running gateway this rejection ended the process.
      proxy.cut();
      await expect.poll(() => proxy.state.swallowed, { timeout: 10_000 }).toBeGreaterThan(1);
    } finally {
      const closing = Date.now();
      await share.close();
      await redis.close();
      expect(Date.now() - closing).toBeLessThan(5_000);
      await proxy.close();
    }
    await settle();
    expect(unhandled.map(String)).toEqual([]);
  });
});
