--[[
  Takes or extends a subject's write lock for one owner (invariant 13: one GitHub write per subject in
  flight) and, when it holds, reads the record the write is checked against.

    KEYS
      lock                the subject's write lock (string: its owner, with an expiry)
      record              the subject's claim record (hash)
    ARGV
      owner               who takes it
      ttlMs               how long it holds without another call (ms)
    Reply
      {'locked', record}  the owner holds it (taken, or extended); record is {} when there is none
      {'busy'}            someone else holds it
]]

if redis.call('GET', KEY.lock) == ARG.owner then
  redis.call('PEXPIRE', KEY.lock, ARG.ttlMs)
elseif not redis.call('SET', KEY.lock, ARG.owner, 'NX', 'PX', ARG.ttlMs) then
  return {'busy'}
end
return {'locked', redis.call('HGETALL', KEY.record)}
