--[[
  Pauses an active generation whose subject's spend reached its budget (`onExhausted: pause`): its
  heartbeats keep it and answer paused until a person raises the limit.

    KEYS
      record              the subject's claim record (hash)
    ARGV
      generation          the active generation
    Reply
      1                   paused now
      0                   already paused, another generation, no record, or not active
]]

local got = redis.call('HMGET', KEY.record, 'generation', 'state', 'budgetPaused')
if got[1] ~= ARG.generation or got[2] ~= 'active' or got[3] then return 0 end
redis.call('HSET', KEY.record, 'budgetPaused', 'true')
return 1
