--[[
  Checks a lease token against the subject's current generation without changing anything: the read
  behind every lease call that only needs to know the lease still holds.

    KEYS
      record              the subject's claim record (hash)
      digests             the subject's lease token digests by generation, and the rotated ones (hash)
    ARGV
      generation          the lease's generation
      tokenDigest         the digest of the lease token shown
      now                 the time of the call (ms), to tell an expired lease
    Reply (records as field/value lists)
      {'ok', record}                    the lease holds
      {'missing'}                       no record, or a generation it never reached
      {'invalid_token'}                 the token is not this generation's
      {'superseded', current, rotatedAt}  a newer generation holds it; rotatedAt only for a rotated token
      {'gone', reason, current}         ended (released, completed, reaped, revoked) or expired
]]

--- @include "record"
--- @include "tokens"

local now = tonumber(ARG.now)
local cur, cur_flat = load(KEY.record)
local refusal = refuse(cur, cur_flat, KEY.digests, ARG.generation, ARG.tokenDigest)
if refusal then return refusal end
if cur.state ~= 'active' then return {'gone', gone_reason(cur.state), cur_flat} end
if now - alive_at(cur) >= tonumber(cur.reclaimAfterMs) then return {'gone', 'expired', cur_flat} end
return {'ok', cur_flat}
