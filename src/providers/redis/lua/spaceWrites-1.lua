--[[
  Reserves when the caller's GitHub write may start: GitHub asks for writes spaced per installation
  (mutations and REST writes a second apart, those that notify three seconds apart), and replicas
  share one spacing. Redis' clock decides, so replicas with skewed clocks still space their writes;
  a lost key (flush, empty restart, eviction) only lets the next write go at once.

    KEYS
      next                when the next write may start (string, ms of Redis' clock; expires when due)
    ARGV
      interval            the spacing (ms)
    Reply
      wait                how long the caller waits before its write starts (ms, 0: at once)
]]

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local start = math.max(now, tonumber(redis.call('GET', KEY.next) or '0'))
local interval = tonumber(ARG.interval)
redis.call('SET', KEY.next, string.format('%d', start + interval), 'PX', start - now + interval)
return start - now
