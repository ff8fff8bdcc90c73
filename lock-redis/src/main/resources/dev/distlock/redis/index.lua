-- Adds members to a lock ID's index, before their grant (see docs/REDIS.md, Lock IDs). Guarantees: each member is
-- scored by the server's TIME in microseconds, in the given order (one apart), so unlock can go newest first. The index
-- is two sorted sets in the ID's slot: members with a lease in KEYS[1], which lives at least ARGV[1] ms more and never
-- without a TTL, and members without expiry in KEYS[2], which has no TTL and exists only while it has a member (Redis
-- deletes an empty sorted set), so the ID's keys are kept for ever exactly while a member without expiry is listed.
-- A member is in one of the two at a time. In a cluster the index is in its ID's slot, apart from the lock keys, so
-- this is its own call.
-- KEYS[1] the members with a lease, KEYS[2] the members without expiry (sorted sets of '<owner token> <key>' by write
-- time, server us)
-- ARGV[1] how long KEYS[1] lives at least, ms; ARGV[2..] pairs: a member, and '1' (without expiry: written to KEYS[2]),
-- '0' (with a lease: written to KEYS[1]) or 'x' (it now has a lease: moved from KEYS[2] to KEYS[1] with its score, if
-- it is there; not a new write)
-- Returns the number of members added or moved.
local t = redis.call('TIME')
local micros = tonumber(t[1]) * 1000000 + tonumber(t[2])
local written = 0
for i = 2, #ARGV, 2 do
	local member = ARGV[i]
	if ARGV[i + 1] == 'x' then
		local score = redis.call('ZSCORE', KEYS[2], member)
		if score then
			redis.call('ZREM', KEYS[2], member)
			redis.call('ZADD', KEYS[1], score, member)
			written = written + 1
		end
	else
		local into = ARGV[i + 1] == '1' and KEYS[2] or KEYS[1]
		local other = ARGV[i + 1] == '1' and KEYS[1] or KEYS[2]
		redis.call('ZADD', into, string.format('%.0f', micros + written), member)
		redis.call('ZREM', other, member)
		written = written + 1
	end
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -1 or (ttl >= 0 and ttl < tonumber(ARGV[1])) then
	redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return written
