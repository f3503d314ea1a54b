--- @include "record"
--- @include "tokens"

local now = tonumber(ARG.now)
local cur, cur_flat = load(KEY.record)
local refusal = refuse(cur, cur_flat, KEY.digests, ARG.generation, ARG.tokenDigest)
if refusal then return refusal end
if cur.state ~= 'active' then return {'gone', gone_reason(cur.state), cur_flat} end
if now - alive_at(cur) >= tonumber(cur.reclaimAfterMs) then return {'gone', 'expired', cur_flat} end
return {'ok', cur_flat}
