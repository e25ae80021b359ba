/**
 * The Lua scripts of the Redis limit store that follow an admission: settling a hold, seeding a period's
 * spending from the database, and carrying over what an instance counted in process while Redis was away.
 * The admission and its read-only check are in redis-admission-scripts.ts. Each runs atomically in Redis, so
 * no step interleaves with another instance's. Lua numbers are returned as strings (Redis would truncate them
 * to integers).
 *
 * Keys, all under the key hash's hash tag (one cluster slot): 1 the period's spending (hash: spent, seed),
 * 2 open reservations (hash: id -> cost), 3 their expiry (sorted set), 4 their total, 5 open streams (sorted
 * set: id -> expiry), 6 requests per second (hash), 7 tokens per second (hash), 8 the holds settled lately
 * (sorted set: id -> when), which makes a settlement idempotent.
 */

/**
 * How long a settled hold id is remembered: a settlement sent again within this time (its reply was lost,
 * the connection dropped after the script ran, and the limiter replays it) is not counted twice.
 */
export const SETTLED_MEMORY_MS = 600_000;

/** The keys of one gateway key's limits, in the scripts' order. */
export function limitKeys(keyHash: string, periodId: string): string[] {
  const base = `switchboard:limits:{${keyHash}}`;
  return [`${base}:spent:${periodId}`, `${base}:holds`, `${base}:hold-expiry`, `${base}:reserved`, `${base}:streams`, `${base}:requests`, `${base}:tokens`, `${base}:settled`];
}

/**
 * Settlement. ARGV: id, real cost, seed of the reservation ('' when the key has no credit limit), second the
 * tokens were counted in (''), real minus reserved tokens, now (ms), how long settled ids are remembered (ms).
 * The cost counts only into the spending the reservation saw: if Redis lost it meanwhile, the spending was
 * seeded again from the database, which has (or will have) this cost already. A seed of `before:<ms>` (a
 * request admitted in process at that time, by an instance that never saw this period's seed) counts into
 * the spending seeded before then: the database could not have had the cost when it was read. A hold id
 * settled before (a retry whose first reply was lost) changes nothing and returns 0.
 */
export const SETTLE_SCRIPT = `
if redis.call('ZSCORE', KEYS[8], ARGV[1]) then return 0 end
local now = tonumber(ARGV[6])
redis.call('ZADD', KEYS[8], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[8], '-inf', now - tonumber(ARGV[7]))
redis.call('PEXPIRE', KEYS[8], ARGV[7])
local amount = redis.call('HGET', KEYS[2], ARGV[1])
if amount then
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
  if redis.call('HLEN', KEYS[2]) == 0 then
    redis.call('DEL', KEYS[4])
  else
    redis.call('INCRBYFLOAT', KEYS[4], -tonumber(amount))
  end
end
if ARGV[3] ~= '' then
  local counts = redis.call('HGET', KEYS[1], 'seed') == ARGV[3]
  if not counts and string.sub(ARGV[3], 1, 7) == 'before:' then
    local at = tonumber(redis.call('HGET', KEYS[1], 'at') or '')
    counts = at ~= nil and at < tonumber(string.sub(ARGV[3], 8))
  end
  if counts then redis.call('HINCRBYFLOAT', KEYS[1], 'spent', ARGV[2]) end
end
redis.call('ZREM', KEYS[5], ARGV[1])
if ARGV[4] ~= '' and tonumber(ARGV[4]) >= math.floor(tonumber(ARGV[6]) / 1000) - 59 then
  local counted = redis.call('HGET', KEYS[7], ARGV[4])
  if counted then
    local value = tonumber(counted) + tonumber(ARGV[5])
    if value < 0 then value = 0 end
    redis.call('HSET', KEYS[7], ARGV[4], value)
  end
end
return 1
`;

/**
 * Seeding. ARGV: spent, a new seed id, ttl (ms), when (ms; a settlement of a request admitted later may count
 * into it without knowing its id, see SETTLE_SCRIPT). Returns the seed in force (this one, or an earlier one).
 */
export const SEED_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'spent', ARGV[1], 'seed', ARGV[2], 'at', ARGV[4])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return redis.call('HGET', KEYS[1], 'seed')
`;

/**
 * Carrying over what one instance counted in process while Redis was away (see redis-carry-over.ts), on keys
 * 1-7: its request and token buckets still in the window are added to Redis's, and its holds still open take
 * their reservation and stream slot here, unconditionally (they were admitted already). ARGV: now (ms), the
 * number of request buckets then their (second, amount) pairs, the number of token buckets then theirs, then
 * per hold: id, reserved cost ('' for none), expiry (ms), '1' for a stream slot. Returns the period's seed
 * ('' when its spending is not counted here yet).
 */
export const CARRY_SCRIPT = `
local now = tonumber(ARGV[1])
local oldest = math.floor(now / 1000) - 59
local at = 2
for _, key in ipairs({ KEYS[6], KEYS[7] }) do
  local count = tonumber(ARGV[at])
  for i = 1, count do
    local second = tonumber(ARGV[at + 2 * i - 1])
    if second >= oldest then redis.call('HINCRBY', key, ARGV[at + 2 * i - 1], ARGV[at + 2 * i]) end
  end
  if count > 0 then redis.call('PEXPIRE', key, 61000) end
  at = at + 2 * count + 1
end
while at + 3 <= #ARGV do
  local id, cost, expires = ARGV[at], ARGV[at + 1], tonumber(ARGV[at + 2])
  local ttl = expires - now + 60000
  if cost ~= '' and not redis.call('HGET', KEYS[2], id) then
    redis.call('HSET', KEYS[2], id, cost)
    redis.call('ZADD', KEYS[3], expires, id)
    redis.call('INCRBYFLOAT', KEYS[4], cost)
    for _, key in ipairs({ KEYS[2], KEYS[3], KEYS[4] }) do
      if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ttl) end
    end
  end
  if ARGV[at + 3] == '1' then
    redis.call('ZADD', KEYS[5], expires, id)
    if redis.call('PTTL', KEYS[5]) < ttl then redis.call('PEXPIRE', KEYS[5], ttl) end
  end
  at = at + 4
end
return redis.call('HGET', KEYS[1], 'seed') or ''
`;
