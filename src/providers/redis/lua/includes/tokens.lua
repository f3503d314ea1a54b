-- What a lease call answers when its token does not hold the current generation.
--- @include "session"
--- @include "liveness"

-- The digests field '<generation>:rotated' lists the tokens re-claims rotated out of that
-- generation as 'digest@at,…' (oldest first, at most ROTATED_TOKENS_KEPT).
local function rotated_at(tok_key, generation_arg, digest)
  local list = redis.call('HGET', tok_key, generation_arg .. ':rotated')
  if not list then return nil end
  local found = nil
  for d, at in string.gmatch(list, '([^@,]+)@([^,]+)') do
    if digests_equal(d, digest) then found = at end
  end
  return found
end

-- What a lease call answers instead of success (nil when the token holds the current generation).
-- generation and state are the record's (false or nil without a record); flat() answers the record's
-- field/value list, read only for a refusal that carries it.
local function lease_refusal(generation, state, flat, tok_key, generation_arg, digest)
  local asked = tonumber(generation_arg)
  if not generation or asked > tonumber(generation) then return {'missing'} end
  local known = redis.call('HGET', tok_key, generation_arg)
  if not known or not digests_equal(known, digest) then
    local at = rotated_at(tok_key, generation_arg, digest)
    if at then return {'superseded', flat(), at} end
    return {'invalid_token'}
  end
  if asked < tonumber(generation) then
    if state == 'active' or state == 'human' then return {'superseded', flat()} end
    return {'gone', gone_reason(state), flat()}
  end
  return nil
end

-- lease_refusal for a record read whole (load): cur and cur_flat.
local function refuse(cur, cur_flat, tok_key, generation_arg, digest)
  if not cur then return {'missing'} end
  return lease_refusal(cur.generation, cur.state, function() return cur_flat end, tok_key, generation_arg, digest)
end
