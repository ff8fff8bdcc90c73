-- Shared release. Guarantees: only this token's place is removed, and only while it has not expired by the server's
-- TIME; the set's expiry is moved back to its longest-lived remaining holder; waiters are told in the same step.
-- KEYS[1] lock key; ARGV[1] owner token, ARGV[2] release channel or '' when pub/sub is off
-- Returns 1 if released, 0 if the token held no live place.
local score = redis.pcall('ZSCORE', KEYS[1], ARGV[1])
if type(score) ~= 'string' then
	return 0
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if tonumber(score) <= now then
	return 0
end
redis.call('ZREM', KEYS[1], ARGV[1])
local top = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if #top > 0 then
	redis.call('PEXPIREAT', KEYS[1], top[2])
end
if ARGV[2] ~= '' then
	redis.call('PUBLISH', ARGV[2], '1')
end
return 1
