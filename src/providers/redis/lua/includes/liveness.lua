-- A record's liveness arithmetic (alive since, live until, deadline), as in the TypeScript core.
local function gone_reason(state)
  if state == 'completed' or state == 'reaped' or state == 'revoked' then return state end
  return 'released'
end

-- A holder waiting (capped waitUntil, set at a heartbeat) is alive until the wait ends
-- (docs/reference/http-api.md#lease-calls).
local function alive_at(m)
  return math.max(tonumber(m.lastHeartbeatAt), tonumber(m.waitUntil) or 0)
end

local function live_until(m) return alive_at(m) + tonumber(m.ttlMs) end

local function deadline_of(m)
  local after = m.staleMarkedAt and tonumber(m.reclaimAfterMs) or tonumber(m.ttlMs)
  return alive_at(m) + after
end
