--[[
  Remembers that a pull request of another repository closes the subject (safe to repeat): appended
  once, the oldest dropped past the bound, the list expiring a while after its last new link.

    KEYS
      crossLinks          the subject's PRs of other repositories that close it (string, JSON list)
    ARGV
      link                the pull request (JSON: repo, repoId, number)
      repoId              its repository's id
      number              its number
      maxLinks            the most links kept (the oldest go first)
      ttlMs               how long the list lives after its last new link (ms)
    Reply
      1                   remembered (or known already)
]]

local raw = redis.call('GET', KEY.crossLinks)
local links = {}
if raw then links = cjson.decode(raw) end
local repoId, number = tonumber(ARG.repoId), tonumber(ARG.number)
for _, link in ipairs(links) do
  if tonumber(link.repoId) == repoId and tonumber(link.number) == number then return 1 end
end
-- Each link is written back as JSON of its own, never through cjson.encode, whose 14 significant
-- digits would round a large id.
local function encoded(link)
  return string.format('{"repo":%s,"repoId":%d,"number":%d}', cjson.encode(link.repo), link.repoId, link.number)
end
local kept = {}
for i = math.max(1, #links + 2 - tonumber(ARG.maxLinks)), #links do kept[#kept + 1] = encoded(links[i]) end
kept[#kept + 1] = ARG.link
redis.call('SET', KEY.crossLinks, '[' .. table.concat(kept, ',') .. ']', 'PX', ARG.ttlMs)
return 1
