--[[
  A person answered (a comment, or the needs-human label removed) while the App asked for one on a
  stalled claim's behalf: the ask is withdrawn (decideStallAsk in src/domain/stall.ts).

    KEYS
      record              the subject's claim record (hash)
    ARGV
      generation          the generation whose ask is answered
    Reply
      1                   withdrawn
      0                   another generation, not active, or no ask of the App's
]]

local got = redis.call('HMGET', KEY.record, 'generation', 'state', 'stallAsk')
if tonumber(got[1]) ~= tonumber(ARG.generation) or got[2] ~= 'active' or not got[3] then return 0 end
redis.call('HDEL', KEY.record, 'stallAsk')
return 1
