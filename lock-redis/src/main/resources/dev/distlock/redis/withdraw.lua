-- A waiter gives up: its queue entry goes, so no later release hands it the lock. Guarantees: only this token's
-- entry is touched; the answer says whether the lock is held under this token now (a hand-off it never took, or a
-- grant whose reply it never got), so the caller releases it at once instead of leaving it for the lease.
-- KEYS[1] lock key, KEYS[2] waiter queue, KEYS[3] waiter entries; ARGV[1] owner token
-- Returns 1 if the lock is held under this token, else 0.
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
-- pcall: a shared lock is a sorted set, where GET answers WRONGTYPE; that is "not ours".
if redis.pcall('GET', KEYS[1]) == ARGV[1] then
	return 1
end
return 0
