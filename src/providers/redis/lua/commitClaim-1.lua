--[[
  Marks a new claim synced once its claim comment is written, and keeps where that comment is.

    KEYS
      record              the subject's claim record (hash)
    ARGV
      generation          the claimed generation; another one is left alone
      commentNodeId       the claim comment's node id
      commentId           the claim comment's id, or ''
    Reply
      1                   committed
      0                   the record has another generation (or is gone)
]]

local generation = redis.call('HGET', KEY.record, 'generation')
if not generation or tonumber(generation) ~= tonumber(ARG.generation) then return 0 end
redis.call('HSET', KEY.record, 'commentNodeId', ARG.commentNodeId, 'sync', 'done')
if ARG.commentId ~= '' then redis.call('HSET', KEY.record, 'commentId', ARG.commentId) end
return 1
