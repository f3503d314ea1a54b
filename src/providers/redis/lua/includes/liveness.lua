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

-- When a live claim became stalled (src/domain/stall.ts), or nil: no progress (the claim, a push, a
-- phase change, a spend increase, a PR event) for stallAfterMs, and no wait, ask or pause declared.
local function stalled_since(m, now)
  if not m.stallAfterMs then return nil end
  if (tonumber(m.waitUntil) or 0) > now or m.needsHuman == 'true' or m.budgetPaused == 'true' then return nil end
  local base = math.max(tonumber(m.claimedAt) or 0, tonumber(m.progressAt) or 0, tonumber(m.lastPushAt) or 0)
  local since = base + tonumber(m.stallAfterMs)
  if now >= since then return since end
  return nil
end

-- The note of a `superseded` history entry: 'stalled' when the generation it ends was live and
-- stalled (its history entry notes it, and the failure breaker counts it: claim-14.lua), else nil.
local function stalled_note(m, now)
  if now - alive_at(m) < tonumber(m.ttlMs) and stalled_since(m, now) then return 'stalled' end
  return nil
end

-- Whether a stalled claim may be taken over while its heartbeats go on (`onStall: reclaimable`).
local function stall_takeover(m, now)
  return m.onStall == 'reclaimable' and stalled_since(m, now) ~= nil
end
