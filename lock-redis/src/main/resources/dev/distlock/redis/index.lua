-- Adds members to a lock ID's index, before their grant (see docs/REDIS.md, Lock IDs). Guarantees: each member is
-- scored by the server's TIME in microseconds, in the given order (one apart), so unlock can go newest first; the
-- index lives at least ARGV[1] ms more, or for ever ('-1', a member without expiry) until an unlock empties it. In a
-- cluster the index is in its ID's slot, apart from the lock keys, so this is its own call.
-- KEYS[1] the index (sorted set of '<owner token> <key>' by grant time, server us)
-- ARGV[1] how long the index lives at least, ms, or '-1' for no expiry; ARGV[2..] the members
-- Returns the number of members added or moved.
local t = redis.call('TIME')
local micros = tonumber(t[1]) * 1000000 + tonumber(t[2])
local ttl = redis.call('PTTL', KEYS[1])
for i = 2, #ARGV do
	redis.call('ZADD', KEYS[1], string.format('%.0f', micros + i - 2), ARGV[i])
end
if ARGV[1] == '-1' then
	redis.call('PERSIST', KEYS[1])
elseif ttl == -2 or (ttl >= 0 and ttl < tonumber(ARGV[1])) then
	redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return #ARGV - 1
