import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createLogger } from '#src/logger.ts';
import { RedisPinStore, STICKY_KEY_PREFIX } from '#src/routing/sticky/redis-pin-store.ts';
import type { StickyPin } from '#src/routing/plan-types.ts';

const redisUrl = process.env.REDIS_URL;
const inCi = process.env.CI === 'true';
const pin: StickyPin = { provider: 'bedrock', credentialId: 'cred-1', model: 'anthropic/claude' };

// Skipped only in local development without Redis; in CI a missing or unreachable Redis fails here.
describe.skipIf(redisUrl === undefined && !inCi)('RedisPinStore against a real Redis', () => {
  const prefix = `switchboard:test:${randomUUID()}:`;
  const logger = createLogger({ level: 'error' });
  let raw: Redis;
  let first: RedisPinStore;
  let second: RedisPinStore;

  let unreachable: string | null = null;

  // A failing beforeAll would only mark the tests skipped; record the problem and fail a test instead.
  beforeAll(async () => {
    raw = new Redis(redisUrl ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1, lazyConnect: true, commandTimeout: 2_000 });
    raw.on('error', () => {});
    try {
      if (redisUrl === undefined) throw new Error('CI=true but REDIS_URL is not set');
      await raw.connect();
      await raw.ping();
    } catch (error) {
      unreachable = error instanceof Error ? error.message : String(error);
    }
    first = new RedisPinStore({ url: redisUrl ?? 'redis://127.0.0.1:1', prefix, logger, commandTimeoutMs: 2_000 });
    second = new RedisPinStore({ url: redisUrl ?? 'redis://127.0.0.1:1', prefix, logger, commandTimeoutMs: 2_000 });
  });

  it('reaches the Redis at REDIS_URL', () => {
    expect(unreachable).toBeNull();
  });

  afterAll(async () => {
    if (unreachable === null) {
      const keys = await raw.keys(`${prefix}*`);
      if (keys.length > 0) await raw.del(...keys);
      await raw.quit();
    } else {
      raw.disconnect();
    }
    await first.close();
    await second.close();
  });

  it('shares a pin between two store instances', async () => {
    await first.set('session-a', pin, 60_000);
    expect(await second.get('session-a')).toEqual(pin);
  });

  it('keeps a thread pin’s upstream answer id, which a continue resumes from', async () => {
    const threadPin: StickyPin = { ...pin, messageId: 'msg_01LastStep' };
    await first.set('thread-a', threadPin, 60_000);
    expect(await second.get('thread-a')).toEqual(threadPin);
  });

  it('keeps the results a thread’s continue must start with', async () => {
    const threadPin: StickyPin = { ...pin, messageId: 'msg_01LastStep', pendingResults: [{ type: 'tool_result', tool_use_id: 'toolu_01Paused', content: 'not run', is_error: true }] };
    await first.set('thread-b', threadPin, 60_000);
    expect(await second.get('thread-b')).toEqual(threadPin);
  });

  it('stores JSON under the prefix with an expiry in milliseconds', async () => {
    await first.set('session-b', pin, 30_000);
    expect(JSON.parse((await raw.get(`${prefix}session-b`)) ?? 'null')).toEqual(pin);
    const ttl = await raw.pttl(`${prefix}session-b`);
    expect(ttl).toBeGreaterThan(25_000);
    expect(ttl).toBeLessThanOrEqual(30_000);
  });

  it('expires a pin after its idle time', async () => {
    await first.set('session-c', pin, 50);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(await second.get('session-c')).toBeUndefined();
  });

  it('deletes a pin for every instance', async () => {
    await first.set('session-d', pin, 60_000);
    await second.delete('session-d');
    expect(await first.get('session-d')).toBeUndefined();
  });

  it('drops a pin conditionally only while it is still the expected one', async () => {
    const other: StickyPin = { provider: 'vertex', credentialId: null, model: 'anthropic/claude' };
    await first.set('session-c', other, 60_000);
    await second.delete('session-c', pin);
    expect(await first.get('session-c')).toEqual(other);
    await second.delete('session-c', { ...other, credentialId: 'cred-1' });
    expect(await first.get('session-c')).toEqual(other);
    await second.delete('session-c', other);
    expect(await first.get('session-c')).toBeUndefined();
    // A pin of the older shape (no model) is compared field by field too.
    await raw.set(`${prefix}session-o`, JSON.stringify({ provider: 'vertex', credentialId: null }), 'PX', 60_000);
    await second.delete('session-o', { provider: 'vertex', credentialId: null });
    expect(await raw.exists(`${prefix}session-o`)).toBe(0);
  });

  it('reads a malformed value as no pin', async () => {
    await raw.set(`${prefix}session-e`, '{"provider":42}');
    expect(await first.get('session-e')).toBeUndefined();
  });

  it('uses switchboard:sticky: as the default prefix', () => {
    expect(STICKY_KEY_PREFIX).toBe('switchboard:sticky:');
  });
});

describe('RedisPinStore with Redis unreachable', () => {
  it('answers no pin and never throws, logging the failure', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'warn', sink: (line) => lines.push(line) });
    // Port 1 on loopback refuses connections at once.
    const store = new RedisPinStore({ url: 'redis://127.0.0.1:1', logger, commandTimeoutMs: 200 });
    try {
      expect(await store.get('k')).toBeUndefined();
      await expect(store.set('k', pin, 1_000)).resolves.toBeUndefined();
      await expect(store.delete('k')).resolves.toBeUndefined();
      expect(lines.some((line) => line.includes('sticky pin get in redis failed'))).toBe(true);
    } finally {
      await store.close();
    }
  });
});
