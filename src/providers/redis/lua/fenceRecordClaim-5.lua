--[[
  Keeps the merge fence's note of one claim generation, and indexes its branch to the subject, so a
  pull request on that branch can be matched to the claim later; answers the subject's linked open
  pull requests (as pullRequestsFor) and its cross links (as crossLinksOf), whose checks a changed claim
  re-runs: one call where a changed claim used to read its cross links on their own.

    KEYS
      notes               the subject's claim notes by generation (hash of JSON)
      branches            the repository's branches to the subjects claimed on them (hash of JSON lists)
      links               the repository's subjects to their linked PR numbers (hash of JSON lists)
      prs                 the repository's indexed open PRs by number (hash of JSON)
      crossLinks          the subject's PRs of other repositories that close it (string, JSON list)
    ARGV
      generation          the claim's generation
      note                the claim note (JSON)
      branch              the claim's branch, or '' for none
      issue               the subject's issue number
      maxNotes            the most notes kept (the oldest generations go first)
      maxSubjectsPerBranch  the most subjects kept per branch (the oldest go first)
      ttlMs               how long the notes and branches live without a write (ms)
    Reply
      {crossLinks, prs...}  recorded; the subject's cross links (JSON list, '' for none) and its linked
                          PRs (JSON each), in no particular order
]]

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
local reply = {redis.call('GET', KEY.crossLinks) or ''}
local linked = redis.call('HGET', KEY.links, ARG.issue)
if not linked then return reply end
local numbers = {}
for i, n in ipairs(cjson.decode(linked)) do numbers[i] = int(n) end
if #numbers == 0 then return reply end
for _, entry in ipairs(redis.call('HMGET', KEY.prs, unpack(numbers))) do
  if entry then reply[#reply + 1] = entry end
end
return reply
