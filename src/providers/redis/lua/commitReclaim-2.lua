--[[
  Makes a re-claim's pending token the lease's once its GitHub write landed; the old token is kept as
  rotated, so its holder hears "superseded" rather than "unauthorized".

    KEYS
      record              the subject's claim record (hash)
      digests             the subject's lease token digests by generation, and the rotated ones (hash)
    ARGV
      generation          the re-claimed generation
      tokenDigest         the digest of the pending token to commit
      now                 the time of the call (ms), when the old token was rotated out
      commentNodeId       the claim comment's node id, or ''
      commentId           the claim comment's id, or ''
    Reply
      record              the committed record (field/value list)
      {}                  nothing committed: the record moved on or the pending token differs
]]

--- @include "record"
--- @include "session"

local cur, cur_flat = load(KEY.record)
if not cur or tonumber(cur.generation) ~= tonumber(ARG.generation) or cur.state ~= 'active'
  or not digests_equal(cur.pendingTokenDigest, ARG.tokenDigest) then
  return {}
end
local old = redis.call('HGET', KEY.digests, cur.generation)
if old then
  local field = cur.generation .. ':rotated'
  local entries = {}
  local list = redis.call('HGET', KEY.digests, field)
  if list then for entry in string.gmatch(list, '[^,]+') do entries[#entries + 1] = entry end end
  entries[#entries + 1] = old .. '@' .. ARG.now
  local first = math.max(1, #entries - ROTATED_TOKENS_KEPT + 1)
  redis.call('HSET', KEY.digests, field, table.concat(entries, ',', first, #entries))
end
redis.call('HSET', KEY.digests, cur.generation, ARG.tokenDigest)
local set = {'tokenDigest', ARG.tokenDigest, 'sync', 'done'}
if ARG.commentNodeId ~= '' then
  set[#set + 1] = 'commentNodeId'
  set[#set + 1] = ARG.commentNodeId
end
if ARG.commentId ~= '' then
  set[#set + 1] = 'commentId'
  set[#set + 1] = ARG.commentId
end
redis.call('HSET', KEY.record, unpack(set))
redis.call('HDEL', KEY.record, 'pendingTokenDigest')
local m, flat = load(KEY.record)
return flat
