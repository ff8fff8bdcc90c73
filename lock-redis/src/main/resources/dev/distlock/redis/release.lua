-- Exclusive release: compare-and-delete. Guarantees: the lock is deleted only while it holds this owner token, so a
-- stale holder never frees the next holder's lock; waiters are told on the release channel in the same step.
-- KEYS[1] lock key; ARGV[1] owner token, ARGV[2] release channel or '' when pub/sub is off
-- Returns 1 if released, 0 if the token no longer held the lock.
-- pcall: after a takeover the key may be a shared-holder set, where GET answers WRONGTYPE; that is "not ours".
if redis.pcall('GET', KEYS[1]) == ARGV[1] then
	redis.call('DEL', KEYS[1])
	if ARGV[2] ~= '' then
		redis.call('PUBLISH', ARGV[2], '1')
	end
	return 1
end
return 0
