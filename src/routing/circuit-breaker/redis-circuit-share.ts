/**
 * Open circuits shared through Redis: an instance that opens (or closes) a circuit writes it under
 * `switchboard:circuit:<model>|<provider>` (kept a half-open window past the cool-down) and publishes it;
 * every instance subscribes, and reads the circuits when its subscription starts (at start, after a Redis
 * outage) and when the command connection returns, as the read needs both: the circuits opened meanwhile open
 * here, those closed meanwhile close, those past their cool-down are half-open; a circuit it opened while
 * Redis was away is published then for the rest of its cool-down.
 * Nothing here is on a request's path; failures only mean each instance decides alone for a while.
 */
import type { Redis } from 'ioredis';
import { quitRedis } from '#src/redis/load-ioredis.ts';
import type { RedisConnection } from '#src/redis/redis-connection.ts';
import type { CircuitShare } from '#src/routing/circuit-breaker/circuit-breaker.ts';

const CHANNEL = 'switchboard:circuits';
const KEY_PREFIX = 'switchboard:circuit:';

function parse(message: string): { key: string; until: number } | undefined {
  try {
    const value = JSON.parse(message) as { key?: unknown; until?: unknown };
    return typeof value.key === 'string' && typeof value.until === 'number' ? { key: value.key, until: value.until } : undefined;
  } catch {
    return undefined;
  }
}

/** The Redis share of a gateway with `REDIS_URL`. */
export class RedisCircuitShare implements CircuitShare {
  readonly #redis: RedisConnection;
  readonly #subscriber: Redis;
  #listener: ((key: string, until: number) => void) | undefined;
  #sync: ((open: ReadonlyMap<string, number>) => void) | undefined;
  readonly #stopReady: () => void;
  readonly #halfOpenMs: number;
  /** Circuits opened while Redis was away, published once it is back (closes are not: one may be stale by then). */
  readonly #unshared = new Map<string, number>();
  /** One per read in progress: the opens and closes seen meanwhile, newer than what the read may return. */
  readonly #seenDuringLoad = new Set<Map<string, number>>();

  /**
   * `halfOpenMs`: how long a circuit's key outlives its cool-down, so that an instance starting (or back from an
   * outage) after the cool-down still knows the circuit is half-open: its first failure reopens it.
   */
  constructor(redis: RedisConnection, options: { halfOpenMs?: number } = {}) {
    this.#redis = redis;
    this.#halfOpenMs = options.halfOpenMs ?? 0;
    this.#subscriber = redis.duplicate('switchboard-circuits');
    this.#subscriber.on('message', (channel: string, message: string) => {
      const parsed = channel === CHANNEL ? parse(message) : undefined;
      if (!parsed) return;
      for (const seen of this.#seenDuringLoad) seen.set(parsed.key, parsed.until);
      this.#listener?.(parsed.key, parsed.until);
    });
    // (Re)subscribes after every (re)connection, a first one that failed included, and reads the circuits
    // opened while this instance was not listening.
    this.#subscriber.on('ready', () => {
      if (!this.#listener) return;
      this.#subscriber.subscribe(CHANNEL).catch(() => undefined);
      void this.#load();
    });
    // After an outage the subscription may come back before the command connection: its read was skipped
    // then, and circuits opened meanwhile by other instances would go unseen for their whole cool-down.
    this.#stopReady = redis.onReady(() => {
      this.#publishUnshared();
      if (this.#listener && this.#subscriber.status === 'ready') void this.#load();
    });
  }

  publish(key: string, until: number): void {
    this.#unshared.delete(key);
    for (const seen of this.#seenDuringLoad) seen.set(key, until);
    if (!this.#redis.available()) {
      this.#redis.fellBack('circuit_breaker');
      this.#keepUnshared(key, until);
      return;
    }
    const write = until > Date.now() ? this.#redis.client.set(KEY_PREFIX + key, String(until), 'PXAT', until + this.#halfOpenMs) : this.#redis.client.del(KEY_PREFIX + key);
    write
      .then(() => this.#redis.client.publish(CHANNEL, JSON.stringify({ key, until })))
      .catch((error: unknown) => {
        this.#redis.fellBack('circuit_breaker', error);
        this.#keepUnshared(key, until);
      });
  }

  subscribe(listener: (key: string, until: number) => void, sync?: (open: ReadonlyMap<string, number>) => void): void {
    this.#listener = listener;
    this.#sync = sync;
    this.#subscriber.subscribe(CHANNEL).catch(() => undefined);
  }

  async close(): Promise<void> {
    this.#listener = undefined;
    this.#sync = undefined;
    this.#stopReady();
    await quitRedis(this.#subscriber);
  }

  #keepUnshared(key: string, until: number): void {
    if (until > Date.now()) this.#unshared.set(key, until);
  }

  #publishUnshared(): void {
    const unshared = [...this.#unshared];
    this.#unshared.clear();
    for (const [key, until] of unshared) if (until > Date.now()) this.publish(key, until);
  }

  async #load(): Promise<void> {
    if (!this.#redis.available()) return;
    const seen = new Map<string, number>();
    this.#seenDuringLoad.add(seen);
    try {
      const open = new Map<string, number>();
      let cursor = '0';
      do {
        const [next, keys] = await this.#redis.client.scan(cursor, 'MATCH', `${KEY_PREFIX}*`, 'COUNT', 100);
        cursor = next;
        if (keys.length === 0) continue;
        const values = await this.#redis.client.mget(...keys);
        keys.forEach((name, index) => {
          const until = Number(values[index]);
          if (Number.isFinite(until)) open.set(name.slice(KEY_PREFIX.length), until);
        });
      } while (cursor !== '0');
      // Opened here while Redis was away and not yet written there: open still, not closed elsewhere.
      for (const [key, until] of this.#unshared) if (!open.has(key)) open.set(key, until);
      // A circuit opened or closed while the keys were read may be missing from them, or stale in them.
      for (const [key, until] of seen) {
        if (until > Date.now()) open.set(key, until);
        else open.delete(key);
      }
      if (this.#sync) this.#sync(open);
      else for (const [key, until] of open) if (until > Date.now()) this.#listener?.(key, until);
    } catch (error) {
      this.#redis.fellBack('circuit_breaker', error);
    } finally {
      this.#seenDuringLoad.delete(seen);
    }
  }
}
