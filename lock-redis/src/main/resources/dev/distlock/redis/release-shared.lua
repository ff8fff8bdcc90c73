-- Shared release. Guarantees: only this token's place is removed, and only while it has not expired by the server's
-- TIME; the set's expiry is moved back to its longest-lived remaining holder (none while one has no expiry); waiters
-- are told in the same step; the releasing token is kept as 'r' in the fence hash, so the same release run again (a
-- replay after a reconnect) answers 1. With 3 KEYS (a lock taken under a lock ID) the token's record in the ids hash
-- goes too; a release by ID (ARGV[3] '1') keeps '<token> unlocked' as 'r', so the holder's own later release reports
-- the lock lost.
-- KEYS[1] lock key, KEYS[2] fence hash, optional KEYS[3] ids hash; ARGV[1] owner token, ARGV[2] release channel or ''
-- when pub/sub is off, optional ARGV[3] '1' for a release by ID
-- Returns 1 if released (now or by an earlier run of this release), 0 if the token held no live place.
local score = redis.pcall('ZSCORE', KEYS[1], ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if #KEYS == 3 then
	redis.call('HDEL', KEYS[3], ARGV[1])
end
if type(score) ~= 'string' or (score ~= 'inf' and tonumber(score) <= now) then
	if redis.call('HGET', KEYS[2], 'r') == ARGV[1] then
		return 1
	end
	return 0
end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], 'r', ARGV[3] == '1' and ARGV[1] .. ' unlocked' or ARGV[1])
expireWithLongestHolder(KEYS[1])
if ARGV[2] ~= '' then
	redis.call('PUBLISH', ARGV[2], '1')
end
return 1
