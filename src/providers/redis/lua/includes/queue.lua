-- The candidate index's order: the same score as src/domain/queue-ranking.ts (rankingScore).
local CREATED_AT_SPAN = 4398046511104 -- 2^42 ms

-- The ranking the repository's index is scored by (the default one until a page read names another).
local function queue_ranking(meta_key, default_ranking)
  local stored = redis.call('HGET', meta_key, 'ranking')
  if stored then return stored end
  redis.call('HSET', meta_key, 'ranking', default_ranking)
  return default_ranking
end

-- The score of a candidate's facts (a decoded table) under a decoded ranking, as an exact integer string.
local function queue_score(facts, ranking)
  local priority = ranking.priority or {}
  local rank = #priority
  local labels = {}
  for _, label in ipairs(facts.labels or {}) do labels[label] = true end
  for i, label in ipairs(priority) do
    if labels[label] then
      rank = i - 1
      break
    end
  end
  local created = math.floor(tonumber(facts.createdAt) or 0)
  if created < 0 then created = 0 end
  if created > CREATED_AT_SPAN - 1 then created = CREATED_AT_SPAN - 1 end
  local time = created
  if ranking.order == 'newest' then time = CREATED_AT_SPAN - 1 - created end
  return string.format('%.0f', rank * CREATED_AT_SPAN + time)
end

-- Scores every candidate of the repository anew (a changed ranking).
local function queue_rescore(order_key, facts_key, ranking)
  local flat = redis.call('HGETALL', facts_key)
  for i = 1, #flat, 2 do
    redis.call('ZADD', order_key, queue_score(cjson.decode(flat[i + 1]), ranking), flat[i])
  end
end
