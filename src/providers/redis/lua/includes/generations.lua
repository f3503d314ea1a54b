-- A subject's next generation.
--- @include "record"

-- One above every generation the subject ever had and every floor given: the high-water mark is kept
-- beside the record, so a generation burnt by a rolled-back claim is never given twice.
local function next_generation(high_water_key, ...)
  local gen = int(math.max(tonumber(redis.call('GET', high_water_key) or '0'), ...) + 1)
  redis.call('SET', high_water_key, gen)
  return gen
end
