-- Trims a lock ID's index after unlock or renew by ID read it (see docs/REDIS.md, Lock IDs). Guarantees: no lock can
-- become unreachable by its ID. An entry leaves only if it was not written again since the caller read it (index.lua
-- scores every write by the server's TIME, so a retried or queued attempt moves it), and, when the caller found no
-- record for it, only once it is older than the grace: until then its acquire may still be in flight (sent, or queued
-- for a hand-off) and may yet write its record. An entry whose lock a renewal gave a lease leaves the members without
-- expiry for the members with a lease (same score), whose set then lives at least the renewal's TTL; so the set of
-- members without expiry, the only index key without a TTL, never lists a lock that has one. An index set left empty
-- is gone (Redis deletes an empty sorted set).
-- KEYS[1] the members with a lease, KEYS[2] the members without expiry (see index.lua)
-- ARGV[1] the grace in us, ARGV[2] the TTL in ms of KEYS[1] after a member moved into it;
-- ARGV[3..] triples: member, its score as read, 'r' (its record was released or dropped), 'p' (no record found) or
-- 'n' (renewed to a lease, or found expired, by a renewal)
-- Returns the number of entries removed.
local t = redis.call('TIME')
local micros = tonumber(t[1]) * 1000000 + tonumber(t[2])
local grace = tonumber(ARGV[1])
local removed = 0
local moved = false
for i = 3, #ARGV, 3 do
	local member = ARGV[i]
	local read = tonumber(ARGV[i + 1])
	local set
	local score = redis.call('ZSCORE', KEYS[1], member)
	if score and tonumber(score) == read then
		set = KEYS[1]
	else
		score = redis.call('ZSCORE', KEYS[2], member)
		if score and tonumber(score) == read then
			set = KEYS[2]
		end
	end
	if set then
		if ARGV[i + 2] == 'r' or (ARGV[i + 2] == 'p' and read < micros - grace) then
			removed = removed + redis.call('ZREM', set, member)
		elseif ARGV[i + 2] == 'n' and set == KEYS[2] then
			redis.call('ZREM', KEYS[2], member)
			redis.call('ZADD', KEYS[1], score, member)
			moved = true
		end
	end
end
if moved then
	local ttl = redis.call('PTTL', KEYS[1])
	if ttl == -1 or (ttl >= 0 and ttl < tonumber(ARGV[2])) then
		redis.call('PEXPIRE', KEYS[1], ARGV[2])
	end
end
return removed
