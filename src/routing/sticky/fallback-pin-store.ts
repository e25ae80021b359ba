/**
 * Sticky pins in Redis while it is there, in process while it is not: a Redis outage moves sessions to
 * per-instance pins (each instance keeps its own sessions warm) instead of dropping stickiness altogether.
 * A pin written in process (Redis was away, or refused the write) is read where Redis has none, so the
 * session keeps its provider after the outage too, until a pin written to Redis replaces it; a dropped pin is
 * dropped from both.
 */
import type { StickyPin } from '#src/routing/plan-types.ts';
import type { RedisConnection } from '#src/redis/redis-connection.ts';
import { MemoryPinStore, type SessionPinStore } from '#src/routing/sticky/memory-pin-store.ts';

/** The pin store of a gateway with `REDIS_URL`: Redis first, the process when Redis is unreachable. */
export class FallbackPinStore implements SessionPinStore {
  readonly #redis: RedisConnection;
  readonly #shared: SessionPinStore;
  readonly #local: MemoryPinStore;

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
        // With no pin held in process (the usual case) a miss costs nothing more.
        if (pin !== undefined || this.#local.size === 0) return pin;
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
        // Redis holds the session again: a pin written in process meanwhile must not outlive this one.
        if (this.#local.size > 0) await this.#local.delete(key);
        return;
      } catch (error) {
        this.#redis.fellBack('sticky_sessions', error);
      }
    }
    await this.#local.set(key, pin, ttlMs);
  }

  async delete(key: string): Promise<void> {
    if (this.#useRedis()) {
      try {
        await this.#shared.delete(key);
      } catch (error) {
        this.#redis.fellBack('sticky_sessions', error);
      }
    }
    await this.#local.delete(key);
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
