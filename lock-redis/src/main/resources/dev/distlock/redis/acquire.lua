-- Exclusive acquire, one round trip. Guarantees: the lock key is set only if it did not exist (SET NX, so any
-- holder, exclusive or shared, excludes it); the per-key fencing counter grows only on success and is never expired
-- or deleted; the holder's details land in the same atomic step.
-- The fencing token is max(counter + 1, server TIME in microseconds): strictly larger than the key's last token, and
-- larger than every token issued before the server lost its data (restart without persistence, failover to a replica
-- that missed writes) as long as the server clock did not go back. Lua numbers are doubles, exact below 2^53 (about
-- the year 2255 in microseconds); '%.0f' stores the integer digits, never an exponent.
-- KEYS[1] lock key, KEYS[2] fence hash
-- ARGV[1] owner token, ARGV[2] lease ms, ARGV[3] owner name, ARGV[4] host; 'at' is the server's TIME in epoch ms
-- Returns {1, fencing token} or {0, remaining ms of the current holder (PTTL)}.
if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then
	local t = redis.call('TIME')
	local fence = math.max(tonumber(redis.call('HGET', KEYS[2], 'n') or '0') + 1, t[1] * 1000000 + t[2])
	redis.call('HSET', KEYS[2], 'n', string.format('%.0f', fence), 'owner', ARGV[3], 'host', ARGV[4],
		'at', string.format('%.0f', t[1] * 1000 + math.floor(t[2] / 1000)), 'mode', 'x')
	return {1, fence}
end
return {0, redis.call('PTTL', KEYS[1])}
