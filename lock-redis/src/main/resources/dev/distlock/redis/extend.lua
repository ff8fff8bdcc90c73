-- Exclusive extend: compare-and-pexpire. Guarantees: the lease is reset to ARGV[2] ms from now only while the lock
-- holds this owner token; an expired or taken-over lock is left alone.
-- KEYS[1] lock key; ARGV[1] owner token, ARGV[2] lease ms
-- Returns 1 if extended, 0 if the token no longer held the lock.
if redis.pcall('GET', KEYS[1]) == ARGV[1] then
	redis.call('PEXPIRE', KEYS[1], ARGV[2])
	return 1
end
return 0
