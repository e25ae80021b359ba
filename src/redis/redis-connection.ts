/**
 * The gateway's one Redis connection, shared by sticky sessions, key limits and circuit breakers. Redis is
 * what makes those agree across instances; it is never what inference depends on. Commands are not queued
 * while the connection is down: each user asks `available()` first and, when Redis is not there (or a command
 * fails), does the same work in process, counted in `switchboard_redis_fallbacks_total{component}`. ioredis
 * reconnects on its own; the outage and the return are each reported once in the log and in
 * `switchboard_redis_up`.
 */
import type { Redis } from 'ioredis';
import { loadRedisClass, quitRedis } from '#src/redis/load-ioredis.ts';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from '#src/logger.ts';

/** Which part of the gateway fell back to working in process. */
export type RedisComponent = 'sticky_sessions' | 'key_limits' | 'circuit_breaker';

/** Options of the shared connection. */
export interface RedisConnectionOptions {
  url: string;
  logger: Logger;
  /** The metrics registry the connection's gauge and counter join. */
  registry?: Registry;
  /** How long one command may take before it counts as failed (and Redis as away for a moment). */
  commandTimeoutMs?: number;
}

// After a command timed out, requests stop asking Redis for this long, and then until it answers a ping: a
// hung server must not cost every request a full timeout.
const SUSPEND_AFTER_TIMEOUT_MS = 1_000;

/** The shared connection and its health. */
export class RedisConnection {
  readonly client: Redis;
  readonly #logger: Logger;
  readonly #url: string;
  readonly #readyListeners = new Set<() => void>();
  readonly #fallbacks: Counter<'component'> | undefined;
  #reportedDown = false;
  #suspendedUntil = 0;
  #closing = false;
  #probing = false;

  constructor(options: RedisConnectionOptions) {
    this.#logger = options.logger;
    this.#url = options.url;
    this.client = new (loadRedisClass())(options.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs ?? 1_000,
      connectTimeout: 2_000,
      connectionName: 'switchboard',
      // Reconnect forever, every second at most: the gateway goes on without Redis meanwhile.
      retryStrategy: (times) => Math.min(100 * times, 1_000),
    });
    const registers = options.registry ? [options.registry] : [];
    this.#fallbacks = options.registry
      ? new Counter({ name: 'switchboard_redis_fallbacks_total', help: 'Operations done in process because Redis was unreachable, by component.', labelNames: ['component'] as const, registers })
      : undefined;
    if (options.registry) {
      const connection = this;
      new Gauge({
        name: 'switchboard_redis_up',
        help: '1 while the shared Redis (REDIS_URL) is connected, 0 while the gateway works without it.',
        registers,
        // With SWITCHBOARD_WORKERS, the instance's scrape shows 1 only while every worker has Redis.
        aggregator: 'min',
        collect() {
          this.set(connection.available() ? 1 : 0);
        },
      });
    }
    this.client.on('ready', () => {
      this.#suspendedUntil = 0;
      this.#back();
      for (const listener of this.#readyListeners) listener();
    });
    // Without an error listener an unreachable Redis would crash the process; 'close' reports the outage.
    this.client.on('error', () => undefined);
    this.client.on('close', () => this.#down());
  }

  /** True when a command may be sent now. */
  available(): boolean {
    if (this.client.status !== 'ready') return false;
    if (this.#suspendedUntil !== 0) {
      if (Date.now() < this.#suspendedUntil) return false;
      // The connection never closed (a command timed out, often the event loop held up): no 'ready' will say
      // Redis answers again, so a ping must. Until it does requests stay in process: a hung server would
      // otherwise cost a request a full timeout, and the log a line down and a line back, every two seconds.
      this.#probe();
      return false;
    }
    return true;
  }

  /** Resolves once connected, or after `timeoutMs` (the gateway starts without Redis rather than wait). */
  async ready(timeoutMs: number): Promise<boolean> {
    if (this.client.status === 'ready') return true;
    return new Promise((resolve) => {
      const done = (value: boolean) => {
        clearTimeout(timer);
        this.#readyListeners.delete(onReady);
        resolve(value);
      };
      const onReady = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.#readyListeners.add(onReady);
    });
  }

  /** Calls `listener` every time the connection becomes ready again (to replay what waited). */
  onReady(listener: () => void): () => void {
    this.#readyListeners.add(listener);
    return () => this.#readyListeners.delete(listener);
  }

  /** Counts one operation a component did in process instead; a timed-out command suspends Redis until it answers a ping again (tried every second). */
  fellBack(component: RedisComponent, error?: unknown): void {
    this.#fallbacks?.inc({ component });
    if (error instanceof Error && /timed out/i.test(error.message)) {
      this.#suspendedUntil = Date.now() + SUSPEND_AFTER_TIMEOUT_MS;
      this.#down();
    }
  }

  /**
   * A second connection to the same server (subscribers cannot send other commands). It does not subscribe
   * again on its own after a reconnection: ioredis's own resubscription leaves its promise unhandled, and one
   * cut short (the connection closing before Redis answers) is an unhandled rejection. The user subscribes on
   * every 'ready', with a handler.
   */
  duplicate(name: string): Redis {
    const copy = new (loadRedisClass())(this.#url, {
      connectionName: name,
      connectTimeout: 2_000,
      retryStrategy: (times) => Math.min(100 * times, 1_000),
      maxRetriesPerRequest: 0,
      autoResubscribe: false,
    });
    copy.on('error', () => undefined);
    return copy;
  }

  async close(): Promise<void> {
    this.#closing = true;
    this.#readyListeners.clear();
    await quitRedis(this.client);
  }

  #probe(): void {
    if (this.#probing || this.#closing) return;
    this.#probing = true;
    this.client
      .ping()
      .then(
        () => {
          this.#suspendedUntil = 0;
          this.#back();
          // Back as after a reconnection: what waited for Redis (settlements to replay, circuits to share and
          // read) goes now, not at the next outage's end.
          for (const listener of this.#readyListeners) listener();
        },
        () => {
          if (this.#suspendedUntil !== 0) this.#suspendedUntil = Date.now() + SUSPEND_AFTER_TIMEOUT_MS;
        },
      )
      .finally(() => (this.#probing = false));
  }

  #back(): void {
    if (!this.#reportedDown) return;
    this.#reportedDown = false;
    this.#logger.info('redis is back: sticky sessions, key limits and circuit breakers are shared again');
  }

  #down(): void {
    if (this.#reportedDown || this.#closing) return;
    this.#reportedDown = true;
    this.#logger.warn('redis is unreachable: sticky sessions, key limits and circuit breakers work per instance until it is back (failing open)');
  }
}
