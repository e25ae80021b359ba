/**
 * The byte bound of a Redis pin store shared by every gateway instance (thread pins, whose `pendingResults`
 * may hold large tool results): one Lua script writes a pin and, in the same step, counts its bytes and evicts
 * the pins that expire first (the least recently written, as every pin of the store lives as long) until the
 * store holds at most its bound. Atomic, so instances writing at once never overshoot it together.
 */
import type { Redis } from 'ioredis';

/** The Redis keys of a store's byte accounting, next to its pins. */
export interface PinBudgetKeys {
  /** Sorted set: pin key, scored by its expiry time (ms, Redis's clock). */
  index: string;
  /** Hash: pin key to its bytes. */
  sizes: string;
  /** Integer: the bytes of every pin counted. */
  total: string;
}

/** The accounting keys under a store's prefix. */
export function pinBudgetKeys(prefix: string): PinBudgetKeys {
  return { index: `${prefix}budget:index`, sizes: `${prefix}budget:sizes`, total: `${prefix}budget:total` };
}

// Time from Redis itself: instances' clocks differ. Pins Redis already expired are forgotten first (up to 100 a
// write, oldest first), so the count follows what Redis holds. A pin larger than the whole bound is not kept.
// A pin deleted by other means stays counted until its expiry: the store then evicts early, never late.
const SET_WITHIN_BUDGET_SCRIPT = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local ttl = tonumber(ARGV[2])
local max = tonumber(ARGV[3])
local size = tonumber(ARGV[4])
local function forget(key)
  local held = redis.call('HGET', KEYS[3], key)
  if held then
    redis.call('HDEL', KEYS[3], key)
    redis.call('DECRBY', KEYS[4], held)
  end
  redis.call('ZREM', KEYS[2], key)
end
for _, key in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 100)) do forget(key) end
forget(KEYS[1])
if size > max then
  redis.call('DEL', KEYS[1])
  return -1
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
redis.call('ZADD', KEYS[2], now + ttl, KEYS[1])
redis.call('HSET', KEYS[3], KEYS[1], size)
local total = redis.call('INCRBY', KEYS[4], size)
local evicted = 0
while total > max do
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)
  if #oldest == 0 then break end
  forget(oldest[1])
  redis.call('DEL', oldest[1])
  evicted = evicted + 1
  total = tonumber(redis.call('GET', KEYS[4]) or '0')
end
return evicted
`;

/**
 * Writes `json` under `key` for `ttlMs` within `maxBytes` for the store: evicts the pins that expire first
 * until it fits. Answers how many pins were evicted, or -1 when the pin alone exceeds the bound (not kept).
 */
export async function setWithinBudget(client: Redis, keys: PinBudgetKeys, key: string, json: string, ttlMs: number, maxBytes: number): Promise<number> {
  const evicted = await client.eval(SET_WITHIN_BUDGET_SCRIPT, 4, key, keys.index, keys.sizes, keys.total, json, Math.max(1, Math.round(ttlMs)), maxBytes, Buffer.byteLength(json));
  return Number(evicted);
}
