/**
 * Sticky pins in Redis while it is there, in process while it is not: a Redis outage moves sessions to
 * per-instance pins (each instance keeps its own sessions warm) instead of dropping stickiness altogether.
 * After the outage the pins are read from Redis again; a pin written in process meanwhile is not copied back.
 */
import type { StickyPin } from '#src/routing/plan-types.ts';
import type { RedisConnection } from '#src/redis/redis-connection.ts';
import { MemoryPinStore, type SessionPinStore } from '#src/routing/sticky/memory-pin-store.ts';

/** The pin store of a gateway with `REDIS_URL`: Redis first, the process when Redis is unreachable. */
export class FallbackPinStore implements SessionPinStore {
  readonly #redis: RedisConnection;
  readonly #shared: SessionPinStore;
  readonly #local: SessionPinStore;

  /** `shared` must throw when Redis fails (rather than answer "no pin"), so the process can take over. */
  constructor(options: { redis: RedisConnection; shared: SessionPinStore; local?: SessionPinStore }) {
    this.#redis = options.redis;
    this.#shared = options.shared;
    this.#local = options.local ?? new MemoryPinStore();
  }

  async get(key: string): Promise<StickyPin | undefined> {
    return this.#run((store) => store.get(key));
  }

  async set(key: string, pin: StickyPin, ttlMs: number): Promise<void> {
    await this.#run((store) => store.set(key, pin, ttlMs));
  }

  async delete(key: string): Promise<void> {
    await this.#run((store) => store.delete(key));
  }

  async close(): Promise<void> {
    await this.#shared.close();
    await this.#local.close();
  }

  async #run<T>(operation: (store: SessionPinStore) => Promise<T>): Promise<T> {
    if (this.#redis.available()) {
      try {
        return await operation(this.#shared);
      } catch (error) {
        this.#redis.fellBack('sticky_sessions', error);
        return operation(this.#local);
      }
    }
    this.#redis.fellBack('sticky_sessions');
    return operation(this.#local);
  }
}
