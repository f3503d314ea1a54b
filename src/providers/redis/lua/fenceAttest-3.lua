--[[
  Records that a lease attested a commit (sha) for its generation, keeping at most maxShas per
  generation and none older than ttlMs.

    KEYS
      attested            the subject's sha to {generation: at} (hash of JSON)
      generationShas      the generation's attested shas by time (sorted set)
      attestedBy          the generation's sha to the attesting token's digest (hash)
    ARGV
      sha                 the attested commit
      generation          the attesting generation
      now                 the time of the call (ms)
      maxShas             the most shas kept per generation
      ttlMs               how long an attestation lives (ms)
      tokenDigest         the attesting token's digest, or '' for none
    Reply
      1                   recorded
]]

--- @include "record"

local sha, generation, now = ARG.sha, ARG.generation, tonumber(ARG.now)
local max, ttl = tonumber(ARG.maxShas), tonumber(ARG.ttlMs)
local function drop(s)
  redis.call('HDEL', KEY.attestedBy, s)
  local raw = redis.call('HGET', KEY.attested, s)
  if not raw then return end
  local m = cjson.decode(raw)
  m[generation] = nil
  if next(m) == nil then redis.call('HDEL', KEY.attested, s) else redis.call('HSET', KEY.attested, s, cjson.encode(m)) end
end
local cutoff = '(' .. int(now - ttl)
for _, s in ipairs(redis.call('ZRANGEBYSCORE', KEY.generationShas, '-inf', cutoff)) do drop(s) end
redis.call('ZREMRANGEBYSCORE', KEY.generationShas, '-inf', cutoff)
redis.call('ZADD', KEY.generationShas, int(now), sha)
local raw = redis.call('HGET', KEY.attested, sha)
local m = {}
if raw then m = cjson.decode(raw) end
m[generation] = now
redis.call('HSET', KEY.attested, sha, cjson.encode(m))
if ARG.tokenDigest ~= '' then redis.call('HSET', KEY.attestedBy, sha, ARG.tokenDigest) else redis.call('HDEL', KEY.attestedBy, sha) end
local n = redis.call('ZCARD', KEY.generationShas)
if n > max then
  for _, s in ipairs(redis.call('ZRANGE', KEY.generationShas, 0, n - max - 1)) do drop(s) end
  redis.call('ZREMRANGEBYRANK', KEY.generationShas, 0, n - max - 1)
end
redis.call('PEXPIRE', KEY.attested, ttl)
redis.call('PEXPIRE', KEY.generationShas, ttl)
if redis.call('EXISTS', KEY.attestedBy) == 1 then redis.call('PEXPIRE', KEY.attestedBy, ttl) end
return 1
