-- Queues one event's deliveries (REST: id, stored delivery pairs), due now, unless the event was queued before.
if not redis.call("SET", KEY.seen, "1", "PX", ARG.eventMemoryMs, "NX") then
  return 0
end
for i = REST, #ARGV, 2 do
  redis.call("HSET", KEY.entries, ARGV[i], ARGV[i + 1])
  redis.call("ZADD", KEY.due, ARG.now, ARGV[i])
end
return 1
