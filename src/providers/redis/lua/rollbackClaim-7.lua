--- @include "history"
--- @include "indexes"

local cur = load(KEY.record)
if not cur or tonumber(cur.generation) ~= tonumber(ARG.generation) or cur.sync ~= 'pending' then return 0 end
redis.call('DEL', KEY.record)
if ARG.hasPrevious == '1' then
  local fields = {}
  for i = REST, #ARGV do fields[#fields + 1] = ARGV[i] end
  redis.call('HSET', KEY.record, unpack(fields))
  local session_key = nil
  if ARG.hasSessionIdentity == '1' then session_key = KEY.sessionSet end
  index_record(load(KEY.record), KEY.deadlines, KEY.holders, ARG.member, KEY.loginSet, session_key)
  touch(KEY.repository, ARG.now, ARG.member)
else
  redis.call('ZREM', KEY.deadlines, ARG.member)
  drop_holder(KEY.holders, ARG.member)
  redis.call('ZREM', KEY.repository, string.match(ARG.member, '[^:]*$'))
end
push_history(KEY.history, ARG.now, cur.generation, 'rolled-back')
return 1
