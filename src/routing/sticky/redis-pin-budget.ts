/**
 * The byte bound of a Redis pin store shared by every gateway instance (thread pins, whose `pendingResults`
 * may hold large tool results): one Lua script writes a pin and, in the same step, counts its bytes and evicts
 * the pins that expire first (the least recently written, as every pin of the store lives as long) until the
 * store holds at most its bound; another deletes a pin and stops counting its bytes. Atomic, so instances
 * writing at once never overshoot the bound together.
 *
 * Redis Cluster: a script may touch only the keys it declares in KEYS, and they must share one hash slot. So
 * a bounded store's pins and its accounting keys all carry one hash tag (`{pins}`, see budgetedPinPrefix), and
 * the pins an eviction deletes are declared too: the client reads the oldest pins first and passes them as
 * KEYS; when the script finds it must evict a pin it was not given, it changes nothing and asks for more
 * (NEEDS_CANDIDATES), and the client retries with a larger window. Most writes evict nothing and need no
 * candidates: one round trip, as before. The cost of one slot is that a store's pins live on one node.
 */
import type { Redis } from 'ioredis';
import { SAME_PIN_LUA } from '#src/routing/sticky/redis-pin-match.ts';

/** The Redis keys of a store's byte accounting, next to its pins. */
export interface PinBudgetKeys {
  /** Sorted set: pin key, scored by its expiry time (ms, Redis's clock). */
  index: string;
  /** Hash: pin key to its bytes. */
  sizes: string;
  /** Integer: the bytes of every pin counted. */
  total: string;
}

/**
 * Where a bounded store keeps its pins: under its prefix and the hash tag `{pins}`, which puts every pin and
 * accounting key of the store in one Redis Cluster slot (the tag is the first braced part of a key).
 */
export function budgetedPinPrefix(prefix: string): string {
  return `${prefix}{pins}:`;
}

/** The accounting keys of a bounded store whose pins are under `pinPrefix` (budgetedPinPrefix's). */
export function pinBudgetKeys(pinPrefix: string): PinBudgetKeys {
  return { index: `${pinPrefix}budget:index`, sizes: `${pinPrefix}budget:sizes`, total: `${pinPrefix}budget:total` };
}

/** The script's answer when it would have to evict a pin the client did not declare. */
const NEEDS_CANDIDATES = -2;
// Retries of a write whose eviction candidates other instances' writes kept changing; then the write fails
// (and the fallback store keeps the pin in process).
const MAX_ATTEMPTS = 5;
const FIRST_WINDOW = 16;

// KEYS[2..4] are the accounting keys of every script here. Forgetting only touches them (members of the index
// and sizes), never the pin's own key.
const FORGET_LUA = `
local function forget(key)
  local held = redis.call('HGET', KEYS[3], key)
  if held then
    redis.call('HDEL', KEYS[3], key)
    redis.call('DECRBY', KEYS[4], held)
  end
  redis.call('ZREM', KEYS[2], key)
end
`;

// KEYS: the pin, index, sizes, total, then the eviction candidates. ARGV: the JSON, ttl, bound, bytes.
// Time from Redis itself: instances' clocks differ. Pins Redis already expired are forgotten first (up to 100 a
// write, oldest first), so the count follows what Redis holds. A pin larger than the whole bound is not kept.
// The pins to evict are chosen before any is touched, so a call that asks for more candidates changed nothing
// but the accounting of pins Redis had already expired.
const SET_WITHIN_BUDGET_SCRIPT = `${FORGET_LUA}
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local ttl = tonumber(ARGV[2])
local max = tonumber(ARGV[3])
local size = tonumber(ARGV[4])
for _, key in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 100)) do forget(key) end
if size > max then
  forget(KEYS[1])
  redis.call('DEL', KEYS[1])
  return -1
end
local excess = tonumber(redis.call('GET', KEYS[4]) or '0') - tonumber(redis.call('HGET', KEYS[3], KEYS[1]) or '0') + size - max
local victims = {}
if excess > 0 then
  local declared = {}
  for index = 5, #KEYS do declared[KEYS[index]] = true end
  local window = redis.call('ZRANGE', KEYS[2], 0, #KEYS - 4)
  for _, key in ipairs(window) do
    if excess <= 0 then break end
    if key ~= KEYS[1] then
      if not declared[key] then return ${NEEDS_CANDIDATES} end
      victims[#victims + 1] = key
      excess = excess - tonumber(redis.call('HGET', KEYS[3], key) or '0')
    end
  end
  if excess > 0 and redis.call('ZCARD', KEYS[2]) > #window then return ${NEEDS_CANDIDATES} end
end
forget(KEYS[1])
for _, key in ipairs(victims) do
  forget(key)
  redis.call('DEL', key)
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
redis.call('ZADD', KEYS[2], now + ttl, KEYS[1])
redis.call('HSET', KEYS[3], KEYS[1], size)
redis.call('INCRBY', KEYS[4], size)
return #victims
`;

// KEYS: the pin, index, sizes, total. ARGV[1] '1' to delete only the same pin (ARGV[2..4], SAME_PIN_LUA).
// A pin already gone (expired) is forgotten too: its bytes are not held any more either.
const DELETE_WITHIN_BUDGET_SCRIPT = `${FORGET_LUA}${SAME_PIN_LUA}
local raw = redis.call('GET', KEYS[1])
if raw and ARGV[1] == '1' and not same_pin(raw, ARGV[2], ARGV[3], ARGV[4]) then return 0 end
forget(KEYS[1])
if not raw then return 0 end
return redis.call('DEL', KEYS[1])
`;

/**
 * Writes `json` under `key` for `ttlMs` within `maxBytes` for the store: evicts the pins that expire first
 * until it fits. Answers how many pins were evicted, or -1 when the pin alone exceeds the bound (not kept).
 */
export async function setWithinBudget(client: Redis, keys: PinBudgetKeys, key: string, json: string, ttlMs: number, maxBytes: number): Promise<number> {
  const args = [json, Math.max(1, Math.round(ttlMs)), maxBytes, Buffer.byteLength(json)];
  let candidates: string[] = [];
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const answer = Number(await client.eval(SET_WITHIN_BUDGET_SCRIPT, 4 + candidates.length, key, keys.index, keys.sizes, keys.total, ...candidates, ...args));
    if (answer !== NEEDS_CANDIDATES) return answer;
    candidates = await client.zrange(keys.index, '0', String(Math.max(FIRST_WINDOW, candidates.length * 4) - 1));
  }
  throw new Error('thread pin write: the pins to evict kept changing under other writes');
}

/**
 * Deletes the pin under `key` (with `expected`, only while it is still that pin) and stops counting its bytes,
 * so the bound is freed at once rather than when the pin would have expired.
 */
export async function deleteWithinBudget(client: Redis, keys: PinBudgetKeys, key: string, expected?: { provider: string; credentialId: string | null; model?: string | undefined }): Promise<void> {
  const match = expected === undefined ? ['0', '', '', ''] : ['1', expected.provider, expected.credentialId ?? '', expected.model ?? ''];
  await client.eval(DELETE_WITHIN_BUDGET_SCRIPT, 4, key, keys.index, keys.sizes, keys.total, ...match);
}
