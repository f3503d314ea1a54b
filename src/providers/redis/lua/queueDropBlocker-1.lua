--[[
  Removes one blocker from every candidate that lists it (a closed blocker); blockers do not move the
  order, so nothing is rescored.

    KEYS
      facts               the candidates' facts by member (hash of JSON)
    ARGV
      blocker             the blocker to remove
      needle              a substring every stored facts entry listing the blocker contains (a prefilter)
    Reply
      changed             how many candidates changed
]]

local flat = redis.call('HGETALL', KEY.facts)
local changed = 0
for i = 1, #flat, 2 do
  if string.find(flat[i + 1], ARG.needle, 1, true) then
    local facts = cjson.decode(flat[i + 1])
    local kept = {}
    for _, blocker in ipairs(facts.blockers or {}) do
      if blocker ~= ARG.blocker then table.insert(kept, blocker) end
    end
    if #kept ~= #(facts.blockers or {}) then
      facts.blockers = kept
      redis.call('HSET', KEY.facts, flat[i], cjson.encode(facts))
      changed = changed + 1
    end
  end
end
return changed
