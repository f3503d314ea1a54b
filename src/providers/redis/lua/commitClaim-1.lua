local generation = redis.call('HGET', KEY.record, 'generation')
if not generation or tonumber(generation) ~= tonumber(ARG.generation) then return 0 end
redis.call('HSET', KEY.record, 'commentNodeId', ARG.commentNodeId, 'sync', 'done')
if ARG.commentId ~= '' then redis.call('HSET', KEY.record, 'commentId', ARG.commentId) end
return 1
