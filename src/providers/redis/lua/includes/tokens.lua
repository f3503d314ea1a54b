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
local function refuse(cur, cur_flat, tok_key, generation_arg, digest)
  local generation = tonumber(generation_arg)
  if not cur or generation > tonumber(cur.generation) then return {'missing'} end
  local known = redis.call('HGET', tok_key, generation_arg)
  if not known or not digests_equal(known, digest) then
    local at = rotated_at(tok_key, generation_arg, digest)
    if at then return {'superseded', cur_flat, at} end
    return {'invalid_token'}
  end
  if generation < tonumber(cur.generation) then
    if cur.state == 'active' or cur.state == 'human' then return {'superseded', cur_flat} end
    return {'gone', gone_reason(cur.state), cur_flat}
  end
  return nil
end
