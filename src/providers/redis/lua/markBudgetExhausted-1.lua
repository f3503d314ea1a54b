--- @include "record"

-- The ended record of this generation was ended by its budget: its lease calls answer budget_exhausted.
local cur = load(KEY.record)
if not cur or cur.generation ~= ARG.generation or cur.state == 'active' then return 0 end
redis.call('HSET', KEY.record, 'budgetExhausted', 'true')
return 1
