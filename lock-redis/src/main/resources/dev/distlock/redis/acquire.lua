-- Exclusive acquire, one round trip. Guarantees: the lock key is set only if it did not exist (SET NX, so any
-- holder, exclusive or shared, excludes it); the per-key fencing counter is incremented only on success and is
-- never expired or deleted; the holder's details land in the same atomic step.
-- KEYS[1] lock key, KEYS[2] fence hash
-- ARGV[1] owner token, ARGV[2] lease ms, ARGV[3] owner name, ARGV[4] host, ARGV[5] acquired-at epoch ms
-- Returns {1, fencing token} or {0, remaining ms of the current holder (PTTL)}.
if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then
	local fence = redis.call('HINCRBY', KEYS[2], 'n', 1)
	redis.call('HSET', KEYS[2], 'owner', ARGV[3], 'host', ARGV[4], 'at', ARGV[5], 'mode', 'x')
	return {1, fence}
end
return {0, redis.call('PTTL', KEYS[1])}
