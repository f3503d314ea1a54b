--[[
  The subject's issue left the repository (deleted or transferred): out of every index, and its record
  revoked but kept, so the old lease answers gone.

    KEYS
      record              the subject's claim record (hash)
      history             the subject's transitions, newest first (list)
      deadlines           the installation's active claims by deadline (sorted set)
      holders             the installation's active claims and the live-claim sets they count in (hash)
      repository          the repository's subjects by last activity (sorted set)
    ARGV
      now                 the time of the call (ms)
      member              the subject in the installation's indexes ("repoId:issue")
    Reply
      {'revoked', previous}  revoked; previous the record as it was before (field/value list)
      {'kept'}               no record, or already revoked (the indexes are cleaned either way)
]]

--- @include "history"
--- @include "indexes"

redis.call('ZREM', KEY.deadlines, ARG.member)
drop_holder(KEY.holders, ARG.member)
redis.call('ZREM', KEY.repository, string.match(ARG.member, '[^:]*$'))
local cur = load(KEY.record)
if not cur or cur.state == 'revoked' then return {'kept'} end
local previous = redis.call('HGETALL', KEY.record)
redis.call('HSET', KEY.record, 'state', 'revoked', 'endedAt', ARG.now, 'sync', 'done')
redis.call('HDEL', KEY.record, 'takeoverBy', 'takeoverAt', 'takeoverGraceMs', 'takeoverKeyDigest', 'stallAsk')
push_history(KEY.history, ARG.now, cur.generation, 'revoked', nil, 'forgotten')
return {'revoked', previous}
