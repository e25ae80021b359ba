/**
 * Sticky pins in Redis while it is there, in process while it is not: a Redis outage moves sessions to
 * per-instance pins (each instance keeps its own sessions warm) instead of dropping stickiness altogether.
 * After the outage the pins are read from Redis again; a pin written in process meanwhile is not copied back,
 * but a pin dropped meanwhile (its provider failed) is dropped from Redis on the return, while Redis still holds
 * that same pin: otherwise the session went back to the provider that had failed.
 * A Redis that answers reads but refuses writes (READONLY after a failover, OOM) gets the same: while its
 * writes fail, a pin it has not is read from the process, where the write went.
 */
import type { StickyPin } from '#src/routing/plan-types.ts';
import type { RedisConnection } from '#src/redis/redis-connection.ts';
import { MemoryPinStore, type SessionPinStore } from '#src/routing/sticky/memory-pin-store.ts';

// As many sessions as the process keeps pins for (MemoryPinStore's bound).
const MAX_MISSED_DROPS = 100_000;

/** The pin store of a gateway with `REDIS_URL`: Redis first, the process when Redis is unreachable. */
export class FallbackPinStore implements SessionPinStore {
  readonly #redis: RedisConnection;
  readonly #shared: SessionPinStore;
  readonly #local: MemoryPinStore;
  // Only while pin writes fail: otherwise a pin the process kept from an outage would outlive its drop by
  // another instance.
  #writesFailing = false;
  // Pins dropped while Redis could not be told, to drop there on its return (each only while Redis still holds
  // it); bounded like the process's pins, the oldest forgotten first.
  readonly #missedDrops = new Map<string, StickyPin>();
  readonly #stopReplay: () => void;

  /** `shared` must throw when Redis fails (rather than answer "no pin"), so the process can take over. */
  constructor(options: { redis: RedisConnection; shared: SessionPinStore; local?: MemoryPinStore }) {
    this.#redis = options.redis;
    this.#shared = options.shared;
    this.#local = options.local ?? new MemoryPinStore();
    this.#stopReplay = this.#redis.onReady(() => void this.#replayDrops());
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
    let told = false;
    if (this.#useRedis()) {
      try {
        await this.#shared.delete(key, expected);
        told = true;
      } catch (error) {
        this.#redis.fellBack('sticky_sessions', error);
      }
    }
    if (!told && expected !== undefined) this.#missDrop(key, expected);
    await this.#local.delete(key, expected);
  }

  async close(): Promise<void> {
    this.#stopReplay();
    this.#missedDrops.clear();
    await this.#shared.close();
    await this.#local.close();
  }

  #missDrop(key: string, pin: StickyPin): void {
    this.#missedDrops.delete(key);
    this.#missedDrops.set(key, pin);
    if (this.#missedDrops.size > MAX_MISSED_DROPS) this.#missedDrops.delete(this.#missedDrops.keys().next().value as string);
  }

  // Sent as soon as the connection is ready, so they reach Redis before any request's read of the same pin.
  async #replayDrops(): Promise<void> {
    const drops = [...this.#missedDrops];
    this.#missedDrops.clear();
    await Promise.all(
      drops.map(async ([key, pin]) => {
        try {
          await this.#shared.delete(key, pin);
        } catch (error) {
          this.#redis.fellBack('sticky_sessions', error);
          if (!this.#missedDrops.has(key)) this.#missDrop(key, pin);
        }
      }),
    );
  }

  #useRedis(): boolean {
    if (this.#redis.available()) return true;
    this.#redis.fellBack('sticky_sessions');
    return false;
  }
}
