-- The checks an App-made transition (endClaim, markStale) re-makes inside the script before it writes.
--- @include "liveness"

-- Why an App-made transition must leave the record alone (nil when it may proceed).
local function end_guard(cur, generation_arg)
  if not cur then return 'missing' end
  if tonumber(cur.generation) ~= tonumber(generation_arg) then return 'moved-on' end
  if cur.state ~= 'active' then return 'not-active' end
  return nil
end

-- With a required silence: silence before the store's epoch is unknown, not proven (invariant 7).
local function still_live(cur, now, silent_ms_arg, epoch_arg)
  if silent_ms_arg == '' then return false end
  local since = math.max(alive_at(cur), tonumber(epoch_arg) or 0)
  return now - since < tonumber(silent_ms_arg)
end
