--- @include "history"
--- @include "indexes"
--- @include "tokens"

local cur, cur_flat = load(KEY.record)
local refusal = refuse(cur, cur_flat, KEY.digests, ARG.generation, ARG.tokenDigest)
if refusal then return refusal end
if cur.state == 'released' or cur.state == 'completed' then return {'released', cur_flat, '1'} end
if cur.state ~= 'active' then return {'gone', gone_reason(cur.state), cur_flat} end
local state = 'released'
if ARG.outcome == 'completed' then state = 'completed' end
redis.call('HSET', KEY.record, 'state', state, 'outcome', ARG.outcome, 'endedAt', ARG.now, 'endedBy', cur.actor, 'sync', 'pending')
redis.call('HDEL', KEY.record, 'takeoverBy', 'takeoverAt', 'takeoverGraceMs', 'takeoverKeyDigest')
redis.call('ZREM', KEY.deadlines, ARG.member)
drop_holder(KEY.holders, ARG.member)
touch(KEY.repository, ARG.now, ARG.member)
push_history(KEY.history, ARG.now, cur.generation, state, cur.actor, ARG.outcome)
local m, flat = load(KEY.record)
return {'released', flat, '0'}
