/**
 * Endpoint statistics shared through Redis, so that the workers of one gateway (and several instances)
 * sort `sort: latency|throughput` by the same measurements. Each process keeps its moving averages in
 * memory, as the planner reads them per request without waiting; every sample it records is also published
 * (batched, a few times a second) and every other process applies it to its own averages. The averages then
 * agree up to the order samples arrived in. Like the pin store, Redis is never a dependency of a request:
 * an outage is logged once and each process keeps its own measurements meanwhile.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { loadRedisClass, quitRedis } from '#src/redis/load-ioredis.ts';
import type { Logger } from '#src/logger.ts';
import { EndpointStatsTracker } from '#src/routing/endpoint-stats.ts';

/** The default pub/sub channel of endpoint samples. */
export const ENDPOINT_STATS_CHANNEL = 'switchboard:endpoint-stats';

/** One recorded call, as published. */
interface Sample {
  model: string;
  provider: string;
  latencyMs: number;
  outputTokens?: number;
  durationMs?: number;
}

/** Options of {@link RedisSharedEndpointStats}. */
export interface RedisEndpointStatsOptions {
  url: string;
  logger: Logger;
  channel?: string;
  /** How long samples are gathered before one publish. */
  flushEveryMs?: number;
}

const finite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

function parseSamples(message: string, self: string): Sample[] {
  try {
    const parsed = JSON.parse(message) as { from?: unknown; samples?: unknown };
    if (parsed.from === self || !Array.isArray(parsed.samples)) return [];
    return (parsed.samples as Partial<Sample>[]).filter(
      (sample): sample is Sample => typeof sample.model === 'string' && typeof sample.provider === 'string' && finite(sample.latencyMs),
    );
  } catch {
    return [];
  }
}

/** An {@link EndpointStatsTracker} that also applies the samples every other process publishes. */
export class RedisSharedEndpointStats extends EndpointStatsTracker {
  readonly #publisher: Redis;
  readonly #subscriber: Redis;
  readonly #channel: string;
  readonly #self = randomUUID();
  readonly #flushEveryMs: number;
  readonly #logger: Logger;
  #pending: Sample[] = [];
  #timer: NodeJS.Timeout | undefined;
  // The connections (or the publisher's last publish) failing now: the outage is logged when the first fails
  // and its end when the last is back, once each, however many retries and reconnections come between.
  readonly #failing = new Set<Redis>();

  constructor(options: RedisEndpointStatsOptions) {
    super();
    this.#channel = options.channel ?? ENDPOINT_STATS_CHANNEL;
    this.#flushEveryMs = options.flushEveryMs ?? 250;
    this.#logger = options.logger;
    const RedisClient = loadRedisClass();
    // A publish never holds anything up; the subscription waits for Redis as long as it takes. It subscribes
    // again on every 'ready' itself: ioredis's own resubscription leaves its promise unhandled, and a
    // connection closing before Redis answered it was an unhandled rejection.
    this.#publisher = new RedisClient(options.url, { commandTimeout: 500, maxRetriesPerRequest: 1, connectionName: 'switchboard-endpoint-stats' });
    this.#subscriber = new RedisClient(options.url, { connectionName: 'switchboard-endpoint-stats-subscriber', autoResubscribe: false });
    for (const client of [this.#publisher, this.#subscriber]) {
      client.on('error', (error: Error) => this.#down(client, error));
      client.on('ready', () => this.#up(client));
    }
    this.#subscriber.on('message', (_channel: string, message: string) => {
      for (const { model, provider, ...sample } of parseSamples(message, this.#self)) super.record(model, provider, sample);
    });
    this.#subscriber.on('ready', () => this.#subscribe());
  }

  /** Resolves once the subscription is active (tests; requests never wait for it). */
  async ready(): Promise<void> {
    await this.#subscriber.subscribe(this.#channel);
  }

  override record(model: string, provider: string, sample: { latencyMs: number; outputTokens?: number; durationMs?: number }): void {
    super.record(model, provider, sample);
    this.#pending.push({ model, provider, ...sample });
    this.#timer ??= setTimeout(() => this.#flush(), this.#flushEveryMs).unref();
  }

  /** Publishes what is pending and closes both connections. */
  async close(): Promise<void> {
    clearTimeout(this.#timer);
    await this.#flush();
    await Promise.all([quitRedis(this.#subscriber), quitRedis(this.#publisher)]);
  }

  async #flush(): Promise<void> {
    this.#timer = undefined;
    if (this.#pending.length === 0) return;
    const samples = this.#pending;
    this.#pending = [];
    try {
      await this.#publisher.publish(this.#channel, JSON.stringify({ from: this.#self, samples }));
      // A publish that timed out on a connection that stayed up has no 'ready' to end it: a success does.
      this.#up(this.#publisher);
    } catch (error) {
      this.#down(this.#publisher, error);
    }
  }

  #subscribe(): void {
    this.#subscriber.subscribe(this.#channel).catch((error: unknown) => this.#down(this.#subscriber, error));
  }

  #up(client: Redis): void {
    if (this.#failing.delete(client) && this.#failing.size === 0) this.#logger.info('redis for endpoint statistics is back');
  }

  #down(client: Redis, error: unknown): void {
    const first = this.#failing.size === 0;
    this.#failing.add(client);
    if (!first) return;
    this.#logger.warn('redis for endpoint statistics is unreachable; each process sorts by its own measurements', {
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

/** Endpoint statistics shared through Redis when `REDIS_URL` is set, else in-process; `close` ends any connection. */
export function createEndpointStats(options: { redisUrl: string | undefined; logger: Logger }): EndpointStatsTracker & { close(): Promise<void> } {
  if (options.redisUrl) return new RedisSharedEndpointStats({ url: options.redisUrl, logger: options.logger });
  return Object.assign(new EndpointStatsTracker(), { close: async () => undefined });
}
