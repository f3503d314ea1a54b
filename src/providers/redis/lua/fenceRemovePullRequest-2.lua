--[[
  Drops a pull request's entry and its links.

    KEYS
      prs                 the repository's pull requests by number (hash of JSON)
      links               the repository's subjects to their linked pull request numbers (hash of JSON)
    ARGV
      number              the pull request's number
    Reply
      1                   removed (whether or not it was there)
]]

--- @include "pullRequestLinks"

unlink_old(tonumber(ARG.number))
redis.call('HDEL', KEY.prs, ARG.number)
return 1
