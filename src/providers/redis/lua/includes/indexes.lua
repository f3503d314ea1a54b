--- @include "record"
--- @include "liveness"

-- The holders hash maps an active subject to "liveUntil\nloginKey\nsessionKey": the truth the
-- login/session index sets are checked against (they may keep members a transition moved away).
local function index_record(m, deadlines, holders, member, login_key, session_key)
  if m and m.state == 'active' then
    redis.call('ZADD', deadlines, int(deadline_of(m)), member)
    redis.call('HSET', holders, member, int(live_until(m)) .. '\n' .. login_key .. '\n' .. (session_key or ''))
    redis.call('SADD', login_key, member)
    if session_key then redis.call('SADD', session_key, member) end
  else
    redis.call('ZREM', deadlines, member)
    redis.call('HDEL', holders, member)
  end
end

-- After a heartbeat: same actor, new liveness.
local function refresh_record(m, deadlines, holders, member)
  redis.call('ZADD', deadlines, int(deadline_of(m)), member)
  local entry = redis.call('HGET', holders, member)
  if entry then
    local rest = string.match(entry, '^[^\n]*(\n.*)$')
    redis.call('HSET', holders, member, int(live_until(m)) .. rest)
  end
end

-- Live claims indexed under set_key (other than member); drops members whose holder moved on.
local function count_live(set_key, holders, member, now, is_login)
  local n = 0
  for _, m in ipairs(redis.call('SMEMBERS', set_key)) do
    if m ~= member then
      local entry = redis.call('HGET', holders, m)
      local until_at, login_key, session_key
      if entry then until_at, login_key, session_key = string.match(entry, '^([^\n]*)\n([^\n]*)\n(.*)$') end
      local owner = login_key
      if not is_login then owner = session_key end
      if owner ~= set_key then
        redis.call('SREM', set_key, m)
      elseif tonumber(until_at) > now then
        n = n + 1
      end
    end
  end
  return n
end

-- The repository listing: member = issue number, score = time of the last transition or heartbeat.
local function touch(repo_key, at, member)
  redis.call('ZADD', repo_key, at, string.match(member, '[^:]*$'))
end
