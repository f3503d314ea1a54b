--- @include "pullRequestLinks"

local number = tonumber(ARG.number)
unlink_old(number)
for _, issue in ipairs(cjson.decode(ARG.entry).linked) do edit_links(tostring(issue), number, true) end
redis.call('HSET', KEY.prs, ARG.number, ARG.entry)
redis.call('PEXPIRE', KEY.prs, ARG.ttlMs)
redis.call('PEXPIRE', KEY.links, ARG.ttlMs)
return 1
