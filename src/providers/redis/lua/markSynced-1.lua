local generation = redis.call('HGET', KEY.record, 'generation')
if not generation or tonumber(generation) ~= tonumber(ARG.generation) then return 0 end
redis.call('HSET', KEY.record, 'sync', 'done')
return 1
