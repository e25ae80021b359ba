/**
 * A sticky-session pin store in Redis, so that several gateway instances share their pins. Redis is an
 * optimisation here, never a dependency of a request: every failure is logged and read as "no pin".
 */
import type { Redis } from 'ioredis';
import { loadRedisClass, quitRedis } from '#src/redis/load-ioredis.ts';
import type { Logger } from '#src/logger.ts';
import type { StickyPin } from '#src/routing/plan-types.ts';
import { MemoryPinStore, type SessionPinStore } from '#src/routing/sticky/memory-pin-store.ts';
import { FallbackPinStore } from '#src/routing/sticky/fallback-pin-store.ts';
import type { RedisConnection } from '#src/redis/redis-connection.ts';
import { budgetedPinPrefix, deleteWithinBudget, pinBudgetKeys, setWithinBudget, type PinBudgetKeys } from '#src/routing/sticky/redis-pin-budget.ts';
import { SAME_PIN_LUA } from '#src/routing/sticky/redis-pin-match.ts';

/** The default prefix of every pin key in Redis. */
export const STICKY_KEY_PREFIX = 'switchboard:sticky:';

/** Options of {@link RedisPinStore}. */
export interface RedisPinStoreOptions {
  /** A connection string; the store then owns (and closes) its client. */
  url?: string;
  /** An existing client, shared with other users and not closed by the store. */
  client?: Redis;
  prefix?: string;
  /** How long one command may take, queued while reconnecting included, before it counts as failed. */
  commandTimeoutMs?: number;
  logger: Logger;
  /** Let failures reach the caller (a fallback store behind it) instead of reading them as "no pin". */
  throwOnFailure?: boolean;
  /**
   * At most this many bytes of pins under the prefix, evicting those that expire first (redis-pin-budget.ts);
   * the pins are then kept under budgetedPinPrefix(prefix), in one Redis Cluster slot.
   */
  maxBytes?: number;
}

// Compare-and-delete in one step: between a GET and a DEL another instance could re-pin the session.
const DELETE_IF_SAME_SCRIPT = `${SAME_PIN_LUA}
local raw = redis.call('GET', KEYS[1])
if raw and same_pin(raw, ARGV[1], ARGV[2], ARGV[3]) then return redis.call('DEL', KEYS[1]) end
return 0
`;

function parsePin(raw: string | null): StickyPin | undefined {
  if (raw === null) return undefined;
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value !== 'object' || value === null) return undefined;
    const { provider, credentialId, model, messageId, pendingResults } = value as Record<string, unknown>;
    if (typeof provider !== 'string' || (credentialId !== null && typeof credentialId !== 'string')) return undefined;
    if (model !== undefined && typeof model !== 'string') return undefined;
    const pin: StickyPin = model === undefined ? { provider, credentialId } : { provider, credentialId, model };
    if (typeof messageId === 'string') pin.messageId = messageId;
    // Written by the gateway itself (loop-run.ts): tool_result blocks, kept as they were stored.
    if (Array.isArray(pendingResults) && pendingResults.length > 0) pin.pendingResults = pendingResults as StickyPin['pendingResults'];
    return pin;
  } catch {
    return undefined;
  }
}

/** Pins as JSON strings under `<prefix><key>`, expiring with `SET … PX`. */
export class RedisPinStore implements SessionPinStore {
  readonly #client: Redis;
  readonly #ownsClient: boolean;
  readonly #prefix: string;
  readonly #logger: Logger;
  readonly #throwOnFailure: boolean;
  readonly #budget: { keys: PinBudgetKeys; maxBytes: number } | undefined;
  #reportedDown = false;

  constructor(options: RedisPinStoreOptions) {
    if (options.client === undefined && options.url === undefined) throw new Error('RedisPinStore needs a url or a client');
    const prefix = options.prefix ?? STICKY_KEY_PREFIX;
    this.#prefix = options.maxBytes === undefined ? prefix : budgetedPinPrefix(prefix);
    this.#logger = options.logger;
    this.#throwOnFailure = options.throwOnFailure ?? false;
    this.#budget = options.maxBytes === undefined ? undefined : { keys: pinBudgetKeys(this.#prefix), maxBytes: options.maxBytes };
    this.#ownsClient = options.client === undefined;
    this.#client =
      options.client ??
      new (loadRedisClass())(options.url as string, {
        // Commands wait for a (re)connection, but never longer than the timeout: a request is not held up.
        commandTimeout: options.commandTimeoutMs ?? 500,
        maxRetriesPerRequest: 1,
        connectionName: 'switchboard-sticky',
      });
    // A shared client is watched by its owner (src/redis/redis-connection.ts).
    if (!this.#ownsClient) return;
    // Without a listener an unreachable Redis would crash the process; report the outage once, not per retry.
    this.#client.on('error', (error: Error) => {
      if (this.#reportedDown) return;
      this.#reportedDown = true;
      this.#logger.warn('redis for sticky sessions is unreachable; routing without pins', { error: error.message });
    });
    this.#client.on('ready', () => {
      if (this.#reportedDown) this.#logger.info('redis for sticky sessions is back');
      this.#reportedDown = false;
    });
  }

  async get(key: string): Promise<StickyPin | undefined> {
    try {
      return parsePin(await this.#client.get(this.#prefix + key));
    } catch (error) {
      this.#failed('get', error);
      return undefined;
    }
  }

  async set(key: string, pin: StickyPin, ttlMs: number): Promise<void> {
    try {
      if (this.#budget) await setWithinBudget(this.#client, this.#budget.keys, this.#prefix + key, JSON.stringify(pin), ttlMs, this.#budget.maxBytes);
      else await this.#client.set(this.#prefix + key, JSON.stringify(pin), 'PX', Math.max(1, Math.round(ttlMs)));
    } catch (error) {
      this.#failed('set', error);
    }
  }

  async delete(key: string, expected?: StickyPin): Promise<void> {
    try {
      if (this.#budget) await deleteWithinBudget(this.#client, this.#budget.keys, this.#prefix + key, expected);
      else if (expected === undefined) await this.#client.del(this.#prefix + key);
      else await this.#client.eval(DELETE_IF_SAME_SCRIPT, 1, this.#prefix + key, expected.provider, expected.credentialId ?? '', expected.model ?? '');
    } catch (error) {
      this.#failed('delete', error);
    }
  }

  async close(): Promise<void> {
    if (!this.#ownsClient) return;
    await quitRedis(this.#client);
  }

  #failed(operation: string, error: unknown): void {
    if (this.#throwOnFailure) throw error;
    this.#logger.warn(`sticky pin ${operation} in redis failed`, { error: error instanceof Error ? error.message : String(error) });
  }
}

/**
 * The pin store the configuration asks for: Redis (falling back to the process while it is unreachable) when
 * the gateway has a Redis connection, in-process otherwise; the process keeps at most `maxEntries` pins. With
 * `maxBytes` (thread pins), the process and Redis each keep at most that many bytes of pins, evicting the
 * least recently written first; `prefix` then keeps the store's pins and their count apart from others'.
 */
export function createPinStore(options: { redis: RedisConnection | undefined; logger: Logger; maxEntries?: number; maxBytes?: number; prefix?: string }): SessionPinStore {
  const local = new MemoryPinStore({
    ...(options.maxEntries === undefined ? {} : { maxEntries: options.maxEntries }),
    ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
  });
  if (!options.redis) return local;
  const shared = new RedisPinStore({
    client: options.redis.client,
    logger: options.logger,
    throwOnFailure: true,
    ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
    ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
  });
  return new FallbackPinStore({ redis: options.redis, shared, local });
}
