--[[
  Stores a pull request's entry and moves its links to the subjects the entry names (dropping the
  links of its previous entry), so links and entries never disagree.

    KEYS
      prs                 the repository's pull requests by number (hash of JSON)
      links               the repository's subjects to their linked pull request numbers (hash of JSON)
    ARGV
      number              the pull request's number
      entry               its entry (JSON, with the linked issue numbers)
      ttlMs               how long the index lives without a write (ms)
    Reply
      1                   stored
]]

--- @include "pullRequestLinks"

local number = tonumber(ARG.number)
unlink_old(number)
for _, issue in ipairs(cjson.decode(ARG.entry).linked) do edit_links(tostring(issue), number, true) end
redis.call('HSET', KEY.prs, ARG.number, ARG.entry)
redis.call('PEXPIRE', KEY.prs, ARG.ttlMs)
redis.call('PEXPIRE', KEY.links, ARG.ttlMs)
return 1
