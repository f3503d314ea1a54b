--[[
  Takes one candidate out of a repository's index, with its reservation.

    KEYS
      order               the candidates by ranking score (sorted set)
      facts               the candidates' facts by member (hash of JSON)
      reservations        the picks reserved: member to "<expiresAt>|<owner>" (hash)
    ARGV
      member              the candidate (zero-padded issue number)
    Reply
      1                   gone (whether or not it was there)
]]

redis.call('ZREM', KEY.order, ARG.member)
redis.call('HDEL', KEY.facts, ARG.member)
redis.call('HDEL', KEY.reservations, ARG.member)
return 1
