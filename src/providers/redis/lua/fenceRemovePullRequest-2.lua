--- @include "pullRequestLinks"

unlink_old(tonumber(ARG.number))
redis.call('HDEL', KEY.prs, ARG.number)
return 1
