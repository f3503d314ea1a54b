-- Shared by put and remove: a PR's links from the subjects its stored entry names (KEY.prs, KEY.links).
local function edit_links(issue, number, add)
  local raw = redis.call('HGET', KEY.links, issue)
  local list, out, seen = {}, {}, false
  if raw then list = cjson.decode(raw) end
  for _, n in ipairs(list) do
    if n == number then seen = true end
    if n ~= number or add then table.insert(out, n) end
  end
  if add and not seen then table.insert(out, number) end
  if #out == 0 then redis.call('HDEL', KEY.links, issue) else redis.call('HSET', KEY.links, issue, cjson.encode(out)) end
end
local function unlink_old(number)
  local old = redis.call('HGET', KEY.prs, tostring(number))
  if not old then return end
  for _, issue in ipairs(cjson.decode(old).linked) do edit_links(tostring(issue), number, false) end
end
