--[[
  Ends a fenced write: reads the record as it is now, commits the claim comment the write created
  (as commitClaim-1.lua), and gives the subject's write lock up unless the record moved on from what
  the write was sent for (then the caller corrects GitHub first and gives it up after).

    KEYS
      record              the subject's claim record (hash)
      lock                the subject's write lock (string: its owner, with an expiry)
    ARGV
      owner               who holds the lock
      generation          the generation the write was sent for
      state               the record state the write was sent for
      stale               '1' when the write was sent for a record marked stale
      commentNodeId       the created claim comment's node id, or '' to commit nothing
      commentId           the created claim comment's id, or ''
      commentGeneration   the generation the claim comment belongs to
    Reply
      record              the record as read before the commit (field/value list)
      {}                  there is no record
]]

local flat = redis.call('HGETALL', KEY.record)
local moved = false
if #flat > 0 then
  local m = {}
  for i = 1, #flat, 2 do m[flat[i]] = flat[i + 1] end
  moved = tonumber(m.generation) ~= tonumber(ARG.generation) or m.state ~= ARG.state
    or (m.staleMarkedAt ~= nil) ~= (ARG.stale == '1')
end
if ARG.commentNodeId ~= '' then
  local generation = redis.call('HGET', KEY.record, 'generation')
  if generation and tonumber(generation) == tonumber(ARG.commentGeneration) then
    redis.call('HSET', KEY.record, 'commentNodeId', ARG.commentNodeId, 'sync', 'done')
    if ARG.commentId ~= '' then redis.call('HSET', KEY.record, 'commentId', ARG.commentId) end
  end
end
if not moved and redis.call('GET', KEY.lock) == ARG.owner then redis.call('DEL', KEY.lock) end
return flat
