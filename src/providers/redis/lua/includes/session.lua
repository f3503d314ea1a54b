-- Comparing sessions and token digests (in constant time).
local function same_session(a, b)
  return a.kind == 'agent' and b.kind == 'agent' and type(a.sessionId) == 'string'
    and a.sessionId ~= '' and a.sessionId == b.sessionId and a.login == b.login
end

-- Constant time over the digest bytes: no early exit on the first difference.
local function digests_equal(a, b)
  if type(a) ~= 'string' or type(b) ~= 'string' or #a ~= #b then return false end
  local acc = 0
  for i = 1, #a do acc = bit.bor(acc, bit.bxor(string.byte(a, i), string.byte(b, i))) end
  return acc == 0
end
