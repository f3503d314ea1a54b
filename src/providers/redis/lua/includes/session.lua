-- Comparing sessions and token digests (in constant time).
local function same_session(a, b)
  return a.kind == 'agent' and b.kind == 'agent' and type(a.sessionId) == 'string'
    and a.sessionId ~= '' and a.sessionId == b.sessionId and a.login == b.login
end

-- Constant time over the digest bytes: no early exit on the first difference and no branch on a
-- byte's value. Eight bytes of each are read per call (a call per byte made it the heartbeat's
-- costliest step); their squared differences add up to 0 only when every byte is equal.
local function digests_equal(a, b)
  if type(a) ~= 'string' or type(b) ~= 'string' or #a ~= #b then return false end
  local byte, acc = string.byte, 0
  for i = 1, #a, 8 do
    -- Past the end (a length not a multiple of 8) both read nil, counted as 0.
    local a1, a2, a3, a4, a5, a6, a7, a8 = byte(a, i, i + 7)
    local b1, b2, b3, b4, b5, b6, b7, b8 = byte(b, i, i + 7)
    local d1, d2, d3, d4 = (a1 or 0) - (b1 or 0), (a2 or 0) - (b2 or 0), (a3 or 0) - (b3 or 0), (a4 or 0) - (b4 or 0)
    local d5, d6, d7, d8 = (a5 or 0) - (b5 or 0), (a6 or 0) - (b6 or 0), (a7 or 0) - (b7 or 0), (a8 or 0) - (b8 or 0)
    acc = acc + d1 * d1 + d2 * d2 + d3 * d3 + d4 * d4 + d5 * d5 + d6 * d6 + d7 * d7 + d8 * d8
  end
  return acc == 0
end
