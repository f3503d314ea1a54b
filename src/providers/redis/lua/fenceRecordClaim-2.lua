--- @include "record"

redis.call('HSET', KEY.notes, ARG.generation, ARG.note)
local max = tonumber(ARG.maxNotes)
local generations = redis.call('HKEYS', KEY.notes)
if #generations > max then
  local numbers = {}
  for i, g in ipairs(generations) do numbers[i] = tonumber(g) end
  table.sort(numbers)
  for i = 1, #numbers - max do redis.call('HDEL', KEY.notes, int(numbers[i])) end
end
redis.call('PEXPIRE', KEY.notes, ARG.ttlMs)
if ARG.branch ~= '' then
  local issue = tonumber(ARG.issue)
  local raw = redis.call('HGET', KEY.branches, ARG.branch)
  local issues = {}
  if raw then issues = cjson.decode(raw) end
  local known = false
  for _, i in ipairs(issues) do if i == issue then known = true end end
  if not known then
    table.insert(issues, issue)
    while #issues > tonumber(ARG.maxSubjectsPerBranch) do table.remove(issues, 1) end
    redis.call('HSET', KEY.branches, ARG.branch, cjson.encode(issues))
  end
  redis.call('PEXPIRE', KEY.branches, ARG.ttlMs)
end
return 1
