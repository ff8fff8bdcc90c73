-- Exclusive extend: compare-and-pexpire. Guarantees: the lease is reset to ARGV[2] ms from now only while the lock
-- holds this owner token; an expired or taken-over lock is left alone. The fence hash is kept at least as long as the
-- lock (see keepFence in shared.lua), and gets a TTL again if a lock without expiry made it persistent.
-- KEYS[1] lock key, KEYS[2] fence hash; ARGV[1] owner token, ARGV[2] lease ms, ARGV[3] fence retention ms
-- Returns 1 if extended, 0 if the token no longer held the lock.
if redis.pcall('GET', KEYS[1]) == ARGV[1] then
	redis.call('PEXPIRE', KEYS[1], ARGV[2])
	keepFence(KEYS[2], tonumber(ARGV[2]), tonumber(ARGV[3]))
	return 1
end
return 0
