--[[
  Queues one event's deliveries, due now, unless the event was queued before (a redelivered webhook
  notifies once).

    KEYS
      seen                the event's mark, kept eventMemoryMs (string)
      due                 the deliveries by due time (sorted set)
      entries             the deliveries by id (hash of JSON)
    ARGV
      now                 the time of the call (ms), when they are due
      eventMemoryMs       how long the event is remembered (ms)
    REST                  delivery id, stored delivery (JSON) pairs
    Reply
      1                   queued
      0                   the event was queued before: nothing queued
]]

if not redis.call("SET", KEY.seen, "1", "PX", ARG.eventMemoryMs, "NX") then
  return 0
end
for i = REST, #ARGV, 2 do
  redis.call("HSET", KEY.entries, ARGV[i], ARGV[i + 1])
  redis.call("ZADD", KEY.due, ARG.now, ARGV[i])
end
return 1
