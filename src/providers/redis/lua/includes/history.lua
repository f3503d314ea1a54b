-- Appends to a subject's transition history, kept to the last HISTORY_LIMIT entries.
local function push_history(key, at, generation, kind, actor, note)
  local entry = '{"at":' .. at .. ',"generation":' .. generation .. ',"kind":"' .. kind .. '"'
  if actor then entry = entry .. ',"actor":' .. actor end
  if note then entry = entry .. ',"note":' .. cjson.encode(note) end
  redis.call('LPUSH', key, entry .. '}')
  redis.call('LTRIM', key, 0, HISTORY_LIMIT - 1)
end
