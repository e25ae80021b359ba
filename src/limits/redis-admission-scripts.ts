/**
 * The admission scripts of the Redis limit store: taking an admission (ADMIT_SCRIPT) and its read-only check
 * (CHECK_SCRIPT), on the keys of limitKeys (redis-limit-scripts.ts, which holds the scripts that follow). Each
 * runs atomically in Redis, so the check and the taking of an admission cannot interleave with another
 * instance's: that is what makes the limits exact across instances. The one-second window is minute-window.ts's
 * rule, written again in Lua. Lua numbers are returned as strings (Redis would truncate them to integers).
 */

// The sliding minute in Lua: a window's total and buckets (pruning old seconds when asked), the wait until
// enough of it has passed for a refused request to fit, and the buckets as text for the process's seed.
const WINDOW_FUNCTIONS = `
local function window(key, oldest, prune)
  local fields = redis.call('HGETALL', key)
  local total = 0
  local buckets = {}
  for i = 1, #fields, 2 do
    local second = tonumber(fields[i])
    if second < oldest then
      if prune then redis.call('HDEL', key, fields[i]) end
    else
      local amount = tonumber(fields[i + 1])
      total = total + amount
      buckets[#buckets + 1] = { second, amount }
    end
  end
  return total, buckets
end
local function retry_after(buckets, total, limit, now)
  table.sort(buckets, function(left, right) return left[1] < right[1] end)
  local remaining = total
  for _, bucket in ipairs(buckets) do
    remaining = remaining - bucket[2]
    if remaining < limit then
      local wait = (bucket[1] + 60) * 1000 - now
      if wait < 1 then wait = 1 end
      return wait
    end
  end
  return 1000
end
-- A window's buckets with \`added\` counted in \`second\`, as 'second:amount' pairs joined by commas.
local function encode(buckets, second, added)
  local parts = {}
  local found = false
  for _, bucket in ipairs(buckets) do
    local amount = bucket[2]
    if bucket[1] == second then
      amount = amount + added
      found = true
    end
    parts[#parts + 1] = string.format('%d:%d', bucket[1], amount)
  end
  if not found then parts[#parts + 1] = string.format('%d:%d', second, added) end
  return table.concat(parts, ',')
end
`;

/**
 * Admission. ARGV: now (ms), id, credit limit ('' for none), reserved cost, expiry of the hold (ms), stream
 * maximum ('' for none or not a stream), requests per minute (''), tokens per minute (''), tokens, ttl of an
 * unbounded period's spending (ms, '0' for a calendar period). Returns {'ok', seed, second, requests in the
 * window, tokens in the window, the requests' buckets, the tokens' buckets} (this admission counted; '' for a
 * limit the key does not have) or the refusal. The counts are what the answer's rate-limit headers say, the
 * buckets what the process's window is seeded with if Redis goes away (no round trip of their own).
 */
export const ADMIT_SCRIPT = `${WINDOW_FUNCTIONS}
local now = tonumber(ARGV[1])
local id = ARGV[2]
local second = math.floor(now / 1000)
local oldest = second - 59
local hold_ttl = tonumber(ARGV[5]) - now + 60000
-- The holds keys are shared by every instance, each with its own hold time: an admission only ever lengthens
-- their life, or a short-timeout instance would cut the holds of a long-timeout one short.
local function extend(key, ttl)
  if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ttl) end
end

local expired = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)
for _, held in ipairs(expired) do
  local amount = redis.call('HGET', KEYS[2], held)
  if amount then
    redis.call('INCRBYFLOAT', KEYS[4], -tonumber(amount))
    redis.call('HDEL', KEYS[2], held)
  end
end
if #expired > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now) end
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now)

if ARGV[3] ~= '' then
  if redis.call('EXISTS', KEYS[1]) == 0 then return { 'seed' } end
  local spent = tonumber(redis.call('HGET', KEYS[1], 'spent') or '0')
  local reserved = tonumber(redis.call('GET', KEYS[4]) or '0')
  if reserved < 0 then reserved = 0 end
  if spent + reserved >= tonumber(ARGV[3]) then return { 'credit', tostring(spent), tostring(reserved) } end
end
if ARGV[6] ~= '' then
  local open = redis.call('ZCARD', KEYS[5])
  if open >= tonumber(ARGV[6]) then return { 'streams', tostring(open) } end
end
local requests_total, requests_buckets, tokens_total, tokens_buckets
if ARGV[7] ~= '' then
  local limit = tonumber(ARGV[7])
  requests_total, requests_buckets = window(KEYS[6], oldest, true)
  if requests_total >= limit then return { 'requests', tostring(retry_after(requests_buckets, requests_total, limit, now)) } end
end
if ARGV[8] ~= '' then
  local limit = tonumber(ARGV[8])
  tokens_total, tokens_buckets = window(KEYS[7], oldest, true)
  if tokens_total >= limit then return { 'tokens', tostring(retry_after(tokens_buckets, tokens_total, limit, now)), tostring(tokens_total) } end
end

local seed = ''
if ARGV[3] ~= '' then
  redis.call('HSET', KEYS[2], id, ARGV[4])
  redis.call('ZADD', KEYS[3], ARGV[5], id)
  redis.call('INCRBYFLOAT', KEYS[4], ARGV[4])
  extend(KEYS[2], hold_ttl)
  extend(KEYS[3], hold_ttl)
  extend(KEYS[4], hold_ttl)
  seed = redis.call('HGET', KEYS[1], 'seed') or ''
  if ARGV[10] ~= '0' then redis.call('PEXPIRE', KEYS[1], ARGV[10]) end
end
if ARGV[6] ~= '' then
  redis.call('ZADD', KEYS[5], ARGV[5], id)
  extend(KEYS[5], hold_ttl)
end
local requests_reply, requests_window, tokens_reply, tokens_window = '', '', '', ''
if ARGV[7] ~= '' then
  redis.call('HINCRBY', KEYS[6], second, 1)
  redis.call('PEXPIRE', KEYS[6], 61000)
  requests_reply = string.format('%d', requests_total + 1)
  requests_window = encode(requests_buckets, second, 1)
end
if ARGV[8] ~= '' then
  redis.call('HINCRBY', KEYS[7], second, ARGV[9])
  redis.call('PEXPIRE', KEYS[7], 61000)
  tokens_reply = string.format('%d', tokens_total + tonumber(ARGV[9]))
  tokens_window = encode(tokens_buckets, second, tonumber(ARGV[9]))
end
return { 'ok', seed, tostring(second), requests_reply, tokens_reply, requests_window, tokens_window }
`;

/**
 * The admission's check alone, reading only (no key is written: a check takes nothing and prunes nothing, and
 * may run on a replica). The same rules in the same order as ADMIT_SCRIPT, on the same keys (1-7): holds and
 * streams past their expiry and buckets older than the window are left out of the counts instead of deleted.
 * ARGV: now (ms), credit limit ('' for none), stream maximum (''), requests per minute (''), tokens per minute
 * (''). Returns {'ok'} or the refusal ADMIT_SCRIPT would return.
 */
export const CHECK_SCRIPT = `${WINDOW_FUNCTIONS}
local now = tonumber(ARGV[1])
local oldest = math.floor(now / 1000) - 59

if ARGV[2] ~= '' then
  if redis.call('EXISTS', KEYS[1]) == 0 then return { 'seed' } end
  local spent = tonumber(redis.call('HGET', KEYS[1], 'spent') or '0')
  local reserved = tonumber(redis.call('GET', KEYS[4]) or '0')
  for _, held in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)) do
    local amount = redis.call('HGET', KEYS[2], held)
    if amount then reserved = reserved - tonumber(amount) end
  end
  if reserved < 0 then reserved = 0 end
  if spent + reserved >= tonumber(ARGV[2]) then return { 'credit', tostring(spent), tostring(reserved) } end
end
if ARGV[3] ~= '' then
  local open = redis.call('ZCOUNT', KEYS[5], '(' .. ARGV[1], '+inf')
  if open >= tonumber(ARGV[3]) then return { 'streams', tostring(open) } end
end
if ARGV[4] ~= '' then
  local limit = tonumber(ARGV[4])
  local total, buckets = window(KEYS[6], oldest, false)
  if total >= limit then return { 'requests', tostring(retry_after(buckets, total, limit, now)) } end
end
if ARGV[5] ~= '' then
  local limit = tonumber(ARGV[5])
  local total, buckets = window(KEYS[7], oldest, false)
  if total >= limit then return { 'tokens', tostring(retry_after(buckets, total, limit, now)), tostring(total) } end
end
return { 'ok' }
`;
