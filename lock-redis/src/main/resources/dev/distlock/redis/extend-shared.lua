-- Shared extend. Guarantees: this token's place is moved to ARGV[2] ms from the server's TIME only while it is still
-- live; the set and its holders' details live as long as its longest-lived holder (for ever while one has no expiry),
-- and the fence hash at least as long (see shared.lua).
-- KEYS[1] lock key, KEYS[2] fence hash, KEYS[3] holders' details; ARGV[1] owner token, ARGV[2] lease ms, ARGV[3] fence
-- retention ms
-- Returns 1 if extended, 0 if the token held no live place (expired places are then removed).
local score = redis.pcall('ZSCORE', KEYS[1], ARGV[1])
if type(score) ~= 'string' then
	return 0
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if score ~= 'inf' and tonumber(score) <= now then
	-- Expired by this script's clock, while the set may live until the end of this millisecond: the expired places
	-- go now, so a lock whose last place has run out is free (not still found by EXISTS) once the answer is "lost".
	pruneExpired(KEYS[1], KEYS[3], now)
	return 0
end
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])
expireWithLongestHolder(KEYS[1], KEYS[3])
keepFence(KEYS[2], redis.call('PTTL', KEYS[1]), tonumber(ARGV[3]))
return 1
