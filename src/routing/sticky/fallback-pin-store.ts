/**
 * Sticky pins in Redis while it is there, in process while it is not: a Redis outage moves sessions to
 * per-instance pins (each instance keeps its own sessions warm) instead of dropping stickiness altogether.
 * After the outage the pins are read from Redis again; a pin written in process meanwhile is not copied back.
 * A Redis that answers reads but refuses writes (READONLY after a failover, OOM) gets the same: while its
 * writes fail, a pin it has not is read from the process, where the write went.
 */
import type { StickyPin } from '#src/routing/plan-types.ts';
import type { RedisConnection } from '#src/redis/redis-connection.ts';
import { MemoryPinStore, type SessionPinStore } from '#src/routing/sticky/memory-pin-store.ts';

/** The pin store of a gateway with `REDIS_URL`: Redis first, the process when Redis is unreachable. */
export class FallbackPinStore implements SessionPinStore {
  readonly #redis: RedisConnection;
  readonly #shared: SessionPinStore;
  readonly #local: MemoryPinStore;
  // Only while pin writes fail: otherwise a pin the process kept from an outage would outlive its drop by
  // another instance.
  #writesFailing = false;

  /** `shared` must throw when Redis fails (rather than answer "no pin"), so the process can take over. */
  constructor(options: { redis: RedisConnection; shared: SessionPinStore; local?: MemoryPinStore }) {
    this.#redis = options.redis;
    this.#shared = options.shared;
    this.#local = options.local ?? new MemoryPinStore();
  }

  async get(key: string): Promise<StickyPin | undefined> {
    if (this.#useRedis()) {
      try {
        const pin = await this.#shared.get(key);
        if (pin !== undefined || !this.#writesFailing) return pin;
        return await this.#local.get(key);
      } catch (error) {
        this.#redis.fellBack('sticky_sessions', error);
      }
    }
    return this.#local.get(key);
  }

  async set(key: string, pin: StickyPin, ttlMs: number): Promise<void> {
    if (this.#useRedis()) {
      try {
        await this.#shared.set(key, pin, ttlMs);
        this.#writesFailing = false;
        return;
      } catch (error) {
        this.#redis.fellBack('sticky_sessions', error);
        // Only Redis's own refusal: a timeout (often a loaded process) sets Redis aside for every read anyway,
        // and the write may well have been made.
        if (error instanceof Error && error.name === 'ReplyError') this.#writesFailing = true;
      }
    }
    await this.#local.set(key, pin, ttlMs);
  }

  async delete(key: string, expected?: StickyPin): Promise<void> {
    if (this.#useRedis()) {
      try {
        await this.#shared.delete(key, expected);
      } catch (error) {
        this.#redis.fellBack('sticky_sessions', error);
      }
    }
    await this.#local.delete(key, expected);
  }

  async close(): Promise<void> {
    await this.#shared.close();
    await this.#local.close();
  }

  #useRedis(): boolean {
    if (this.#redis.available()) return true;
    this.#redis.fellBack('sticky_sessions');
    return false;
  }
}
