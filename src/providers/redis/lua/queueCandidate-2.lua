--[[
  One indexed issue's facts and when the repository's index was last refreshed, read together (a
  direct claim's blockers are taken from an index no older than its maxIndexAge).

    KEYS
      meta                the ranking the index is scored by, and when it was refreshed (hash)
      facts               the candidates' facts by member (hash of JSON)
    ARGV
      member              the issue's member in the index
    Reply
      {refreshedAt, facts}  refreshedAt '' when never refreshed; facts '' when the index does not hold the issue
]]

return { redis.call('HGET', KEY.meta, 'refreshedAt') or '', redis.call('HGET', KEY.facts, ARG.member) or '' }
