--[[
  Marks an ended generation as ended by its budget, so its lease calls answer budget_exhausted.

    KEYS
      record              the subject's claim record (hash)
    ARGV
      generation          the ended generation
    Reply
      1                   marked
      0                   another generation, no record, or still active
]]

--- @include "record"

local cur = load(KEY.record)
if not cur or cur.generation ~= ARG.generation or cur.state == 'active' then return 0 end
redis.call('HSET', KEY.record, 'budgetExhausted', 'true')
return 1
