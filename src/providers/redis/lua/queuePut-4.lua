--[[
  Adds or replaces one candidate of a repository's index for claims/next, scored by the index's ranking.

    KEYS
      order               the candidates by ranking score (sorted set)
      facts               the candidates' facts by member (hash of JSON)
      meta                the ranking the index is scored by, and when it was refreshed (hash)
      names               the installation's repositories: lower-cased owner/name to id (hash)
    ARGV
      member              the candidate (zero-padded issue number)
      facts               its facts (JSON)
      defaultRanking      the ranking to score by when the index has none yet (JSON)
      repoName            the repository's lower-cased owner/name
      repoId              the repository's id
    Reply
      1                   stored
]]

--- @include "queue"
local ranking = cjson.decode(queue_ranking(KEY.meta, ARG.defaultRanking))
redis.call('HSET', KEY.names, ARG.repoName, ARG.repoId)
redis.call('HSET', KEY.facts, ARG.member, ARG.facts)
redis.call('ZADD', KEY.order, queue_score(cjson.decode(ARG.facts), ranking), ARG.member)
return 1
