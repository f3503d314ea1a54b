--- @include "history"
--- @include "indexes"

-- The record stays (so the old lease answers gone) but synced: its issue left the repository.
redis.call('ZREM', KEY.deadlines, ARG.member)
drop_holder(KEY.holders, ARG.member)
redis.call('ZREM', KEY.repository, string.match(ARG.member, '[^:]*$'))
local cur = load(KEY.record)
if not cur or cur.state == 'revoked' then return 0 end
redis.call('HSET', KEY.record, 'state', 'revoked', 'endedAt', ARG.now, 'sync', 'done')
redis.call('HDEL', KEY.record, 'takeoverBy', 'takeoverAt', 'takeoverGraceMs', 'takeoverKeyDigest')
push_history(KEY.history, ARG.now, cur.generation, 'revoked', nil, 'forgotten')
return 1
