-- The installation's indexes of active claims: deadlines, holders, live-claim sets, repository listing.
--- @include "record"
--- @include "liveness"

-- The holders hash maps an active subject to "z\nloginKey\nsessionKey": the sorted sets (scored by
-- live-until) that count it against its login and its session ('' when it has no session identity).
-- An entry written before those sets existed reads "liveUntil\nloginSet\nsessionSet" (plain sets,
-- no longer read); index_backfill or the subject's next heartbeat or indexing moves it in, and no
-- script touches the plain sets it names except the backfill, which deletes them.
local function holder_entry(entry)
  local head, login_key, session_key = string.match(entry, '^([^\n]*)\n([^\n]*)\n(.*)$')
  return head == 'z', login_key, session_key, head
end

-- Takes member out of the holders hash and out of the live-claim sets its entry names.
local function drop_holder(holders, member)
  local entry = redis.call('HGET', holders, member)
  if not entry then return end
  local indexed, login_key, session_key = holder_entry(entry)
  if indexed then
    redis.call('ZREM', login_key, member)
    if session_key ~= '' then redis.call('ZREM', session_key, member) end
  end
  redis.call('HDEL', holders, member)
end

local function index_record(m, deadlines, holders, member, login_key, session_key)
  if m and m.state == 'active' then
    redis.call('ZADD', deadlines, int(deadline_of(m)), member)
    session_key = session_key or ''
    local entry = redis.call('HGET', holders, member)
    if entry then
      -- A new holder of the subject: it stops counting against the previous one's login and session.
      local indexed, old_login, old_session = holder_entry(entry)
      if indexed and old_login ~= login_key then redis.call('ZREM', old_login, member) end
      if indexed and old_session ~= '' and old_session ~= session_key then
        redis.call('ZREM', old_session, member)
      end
    end
    local until_at = int(live_until(m))
    redis.call('HSET', holders, member, 'z\n' .. login_key .. '\n' .. session_key)
    redis.call('ZADD', login_key, until_at, member)
    if session_key ~= '' then redis.call('ZADD', session_key, until_at, member) end
  else
    redis.call('ZREM', deadlines, member)
    drop_holder(holders, member)
  end
end

-- The live-claim sorted set of an old plain set: `<base>:login:…` becomes `<base>:live:login:…`,
-- where `<base>:holders` is the holders hash (keys.ts); both keep the installation's hash tag.
local function live_set_of(holders, old)
  local base = string.sub(holders, 1, -(#':holders' + 1))
  return base .. ':live' .. string.sub(old, #base + 1)
end

-- Moves an entry written before the live-claim sets into them, counted until until_at.
local function upgrade_holder(holders, member, until_at, old_login, old_session)
  local login_key, session_key = live_set_of(holders, old_login), ''
  redis.call('ZADD', login_key, until_at, member)
  if old_session ~= '' then
    session_key = live_set_of(holders, old_session)
    redis.call('ZADD', session_key, until_at, member)
  end
  redis.call('HSET', holders, member, 'z\n' .. login_key .. '\n' .. session_key)
end

-- After a heartbeat: same actor, new liveness. An entry from before the sets moves in here too,
-- so a claim an old replica indexed during a rolling upgrade counts from its next heartbeat.
local function refresh_record(m, deadlines, holders, member)
  redis.call('ZADD', deadlines, int(deadline_of(m)), member)
  local entry = redis.call('HGET', holders, member)
  if not entry then return end
  local indexed, login_key, session_key = holder_entry(entry)
  local until_at = int(live_until(m))
  if indexed then
    redis.call('ZADD', login_key, until_at, member)
    if session_key ~= '' then redis.call('ZADD', session_key, until_at, member) end
  else
    upgrade_holder(holders, member, until_at, login_key, session_key)
  end
end

-- Once per installation (marked by the key `marker`): moves every entry written before the
-- live-claim sets into them, and deletes the old plain sets those entries name.
local function index_backfill(marker, holders)
  if redis.call('EXISTS', marker) == 1 then return end
  local flat = redis.call('HGETALL', holders)
  local old_sets = {}
  for i = 1, #flat, 2 do
    local indexed, old_login, old_session, until_at = holder_entry(flat[i + 1])
    if not indexed then
      upgrade_holder(holders, flat[i], until_at, old_login, old_session)
      old_sets[old_login] = true
      if old_session ~= '' then old_sets[old_session] = true end
    end
  end
  for old in pairs(old_sets) do redis.call('DEL', old) end
  redis.call('SET', marker, '1')
end

-- Live claims counted in the sorted set set_key other than member: O(log n), scores are live-until.
local function count_live(set_key, member, now)
  local n = redis.call('ZCOUNT', set_key, '(' .. int(now), '+inf')
  local own = redis.call('ZSCORE', set_key, member)
  if own and tonumber(own) > now then n = n - 1 end
  return n
end

-- The repository listing: member = issue number, score = time of the last transition or heartbeat.
local function touch(repo_key, at, member)
  redis.call('ZADD', repo_key, at, string.match(member, '[^:]*$'))
end
