--- @include "queue"
local ranking = cjson.decode(queue_ranking(KEY.meta, ARG.defaultRanking))
redis.call('HSET', KEY.names, ARG.repoName, ARG.repoId)
redis.call('HSET', KEY.facts, ARG.member, ARG.facts)
redis.call('ZADD', KEY.order, queue_score(cjson.decode(ARG.facts), ranking), ARG.member)
return 1
