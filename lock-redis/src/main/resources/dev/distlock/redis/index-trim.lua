-- Trims a lock ID's index after unlock or renew by ID read it (see docs/REDIS.md, Lock IDs). Guarantees: no lock can
-- become unreachable by its ID. An entry leaves only if it was not written again since the caller read it (index.lua
-- scores every write by the server's TIME, so a retried or queued attempt moves it), and, when the caller found no
-- record for it, only once it is older than the grace: until then its acquire may still be in flight (sent, or queued
-- for a hand-off) and may yet write its record. A renewal that found every entry's lock and nothing newer than what it
-- read sets the index's TTL, even a persistent one (the locks it renewed have a lease now); an entry still pending, or
-- one written since, keeps the TTL as it is. An index left empty is gone (Redis deletes an empty sorted set).
-- KEYS[1] the index (sorted set of '<owner token> <key>' by write time, server us)
-- ARGV[1] the grace in us, ARGV[2] the newest score the caller read, ARGV[3] the TTL to set in ms, or '0' to leave it;
-- ARGV[4..] triples: member, its score as read, 'r' (its record was released or dropped) or 'p' (no record found)
-- Returns the number of entries removed.
local t = redis.call('TIME')
local micros = tonumber(t[1]) * 1000000 + tonumber(t[2])
local grace = tonumber(ARGV[1])
local pending = false
local removed = 0
for i = 4, #ARGV, 3 do
	local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
	if score and tonumber(score) == tonumber(ARGV[i + 1]) then
		if ARGV[i + 2] == 'r' or tonumber(score) < micros - grace then
			removed = removed + redis.call('ZREM', KEYS[1], ARGV[i])
		else
			pending = true
		end
	end
end
if ARGV[3] ~= '0' and not pending
		and #redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[2], '+inf', 'LIMIT', 0, 1) == 0 then
	redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return removed
