--[[
  Marks a generation's GitHub writes done, so reconcile stops retrying them.

    KEYS
      record              the subject's claim record (hash)
    ARGV
      generation          the generation written; another one is left alone
    Reply
      1                   marked
      0                   the record has another generation (or is gone)
]]

local generation = redis.call('HGET', KEY.record, 'generation')
if not generation or tonumber(generation) ~= tonumber(ARG.generation) then return 0 end
redis.call('HSET', KEY.record, 'sync', 'done')
return 1
