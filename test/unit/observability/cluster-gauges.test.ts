/**
 * The gauges whose cluster aggregate is not a sum, aggregated as the primary does (prom-client's
 * `AggregatorRegistry.aggregate` of each worker's `getMetricsAsJSON()`): `switchboard_redis_up` is 1 only while
 * every worker has Redis, and `switchboard_circuits_open` counts a circuit every worker shares once; the
 * breaker's counter still sums.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { AggregatorRegistry, Registry } from 'prom-client';
import { createLogger } from '#src/logger.ts';
import { RedisConnection } from '#src/redis/redis-connection.ts';
import { CircuitBreaker } from '#src/routing/circuit-breaker/circuit-breaker.ts';
import type { AttemptOutcome } from '#src/routing/attempt.ts';
import { parseScrape } from '#test/helpers/prometheus-scrape.ts';

const redisUrl = process.env.REDIS_URL;
const logger = createLogger({ level: 'error' });

async function aggregate(registries: Registry[]) {
  return parseScrape(await AggregatorRegistry.aggregate(await Promise.all(registries.map((registry) => registry.getMetricsAsJSON()))).metrics());
}

describe('cluster aggregation of the gauges', () => {
  const connections: RedisConnection[] = [];
  afterAll(async () => {
    await Promise.all(connections.map((connection) => connection.close()));
  });

  it('switchboard_circuits_open: the workers share their circuits, so the aggregate is the largest count', async () => {
    const failure = { attempt: { model: 'm', provider: { slug: 'alpha' }, credential: { kind: 'shared' } } as never, index: 0, status: 'server_error', durationMs: 1 } as AttemptOutcome;
    const registries = [new Registry(), new Registry()];
    // As two workers that both saw the endpoint fail (or heard of its circuit through Redis).
    for (const registry of registries) new CircuitBreaker({ failures: 1, cooldownMs: 60_000, logger, registry }).record([failure]);
    const scrape = await aggregate(registries);
    expect(scrape.value('switchboard_circuits_open')).toBe(1);
    expect(scrape.value('switchboard_circuit_opened_total', { provider: 'alpha' })).toBe(2);
  });

  // Skipped only in local development without Redis; in CI a missing Redis fails here.
  it.skipIf(redisUrl === undefined && process.env.CI !== 'true')('switchboard_redis_up: 1 only while every worker has Redis', async () => {
    if (redisUrl === undefined) throw new Error('CI=true but REDIS_URL is not set');
    const up = [new Registry(), new Registry()];
    const down = new Registry();
    for (const registry of up) {
      const connection = new RedisConnection({ url: redisUrl, logger, registry });
      connections.push(connection);
      expect(await connection.ready(5_000)).toBe(true);
    }
    // Port 1: refused at once, so this "worker" works without Redis.
    connections.push(new RedisConnection({ url: 'redis://127.0.0.1:1', logger, registry: down }));
    expect((await aggregate(up)).value('switchboard_redis_up')).toBe(1);
    expect((await aggregate([...up, down])).value('switchboard_redis_up')).toBe(0);
  });
});
