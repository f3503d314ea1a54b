-- Reading a claim record hash, and writing numbers computed in Lua.

-- Numbers computed in Lua are written with %d so large millisecond timestamps never turn into
-- exponent notation.
local function int(n) return string.format('%d', n) end

-- The record hash as a table, and as the flat field/value list the scripts answer with.
local function load(key)
  local flat = redis.call('HGETALL', key)
  if #flat == 0 then return nil, flat end
  local m = {}
  for i = 1, #flat, 2 do m[flat[i]] = flat[i + 1] end
  return m, flat
end
