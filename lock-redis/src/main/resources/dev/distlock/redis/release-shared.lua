-- Shared release. Guarantees: only this token's place (and its details) is removed, and only while it has not expired
-- by the server's TIME; the set's expiry is moved back to its longest-lived remaining holder (none while one has no
-- expiry); waiters are told in the same step; the release is kept in the fence hash's list of recent releases
-- (rememberRelease in shared.lua) under this token, so the same release run again (a replay after a reconnect) answers 1 even after other
-- readers released since. A lock taken under a lock ID (ARGV[6] '1') drops its record from the ids hash, which gets
-- a TTL if no record without expiry is left; a release by ID (ARGV[3] '1') is remembered as '<token> unlocked', so its
-- own replay answers 1 and the holder's own later release reports the lock lost. The fence hash, kept persistent by a
-- holder without expiry, lives the retention once none is left.
-- KEYS[1] lock key, KEYS[2] fence hash, KEYS[3] ids hash, KEYS[4] holders' details
-- ARGV[1] owner token, ARGV[2] release channel or '' when pub/sub is off, ARGV[3] '1' for a release by ID, ARGV[4]
-- the fence retention ms, ARGV[5] how long the list of recent releases keeps one, ms, ARGV[6] '1' when taken under a lock ID
-- Returns 1 if released (now or by an earlier run of this release), 0 if the token held no live place.
local score = redis.pcall('ZSCORE', KEYS[1], ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local retention = tonumber(ARGV[4])
if ARGV[6] == '1' then
	redis.call('HDEL', KEYS[3], ARGV[1])
	expireIdsWithLongestRecord(KEYS[3], retention, now)
end
local member = ARGV[3] == '1' and ARGV[1] .. ' unlocked' or ARGV[1]
if type(score) ~= 'string' or (score ~= 'inf' and tonumber(score) <= now) then
	if type(score) == 'string' then
		-- Expired by this script's clock, while the set may live until the end of this millisecond: see extend-shared.
		pruneExpired(KEYS[1], KEYS[4], now)
	end
	if releasedBefore(KEYS[2], member) then
		return 1
	end
	return 0
end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[4], ARGV[1])
rememberRelease(KEYS[2], member, now, tonumber(ARGV[5]))
expireWithLongestHolder(KEYS[1], KEYS[4])
if redis.call('PTTL', KEYS[2]) == -1 and redis.call('PTTL', KEYS[1]) ~= -1 then
	redis.call('PEXPIRE', KEYS[2], retention)
end
if ARGV[2] ~= '' then
	redis.call('PUBLISH', ARGV[2], '1')
end
return 1
