-- Exclusive acquire, one round trip. Guarantees: the lock key is set only if it did not exist (SET NX, so any
-- holder, exclusive or shared, excludes it); the per-key fencing counter grows only on success; the holder's details
-- land in the same atomic step; running it twice with one owner token (a client replaying it after a reconnect)
-- answers "yours" the second time, never "held by someone else".
-- The fencing token is max(counter + 1, server TIME in microseconds): strictly larger than the key's last token, and
-- larger than every token issued before the counter was lost (fence retention passed, restart without persistence,
-- failover to a replica that missed writes) as long as the server clock did not go back. Lua numbers are doubles,
-- exact below 2^53 (about the year 2255 in microseconds); '%.0f' stores the integer digits, never an exponent. The
-- fence hash lives for the retention, and never less than the lease it serves.
-- A caller that waits for a hand-off (ARGV[5] > 0) joins the key's FIFO waiter queue when refused, or refreshes its
-- entry, keeping its place; release.lua hands the lock to the queue's live head.
-- KEYS[1] lock key, KEYS[2] fence hash, KEYS[3] waiter queue (sorted set: token by arrival, server ms),
-- KEYS[4] waiter entries (hash: token -> JSON [deadline ms, attempt, lease ms, owner, host, grant channel])
-- ARGV[1] owner token, ARGV[2] lease ms, ARGV[3] owner name, ARGV[4] host, ARGV[5] how long the queue entry stays
-- valid in ms ('0': do not queue), ARGV[6] the caller's queued-attempt number (from 0), echoed in the hand-off
-- message, ARGV[7] the caller's grant channel, where release.lua publishes the hand-off, ARGV[8] fence retention ms
-- Returns {1, fencing token} if acquired now; {2, fencing token} if this token already holds the lock (a hand-off
-- the caller has not yet heard of, or a replay); {0, remaining ms of the current holder (PTTL)} if held by another.
if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then
	local t = redis.call('TIME')
	local fence = math.max(tonumber(redis.call('HGET', KEYS[2], 'n') or '0') + 1, t[1] * 1000000 + t[2])
	redis.call('HSET', KEYS[2], 'n', string.format('%.0f', fence), 'owner', ARGV[3], 'host', ARGV[4],
		'at', string.format('%.0f', t[1] * 1000 + math.floor(t[2] / 1000)), 'mode', 'x')
	redis.call('PEXPIRE', KEYS[2], math.max(tonumber(ARGV[8]), tonumber(ARGV[2])))
	if ARGV[5] ~= '0' and ARGV[6] ~= '0' then -- an earlier attempt of this caller queued: leave the queue
		redis.call('ZREM', KEYS[3], ARGV[1])
		redis.call('HDEL', KEYS[4], ARGV[1])
	end
	return {1, fence}
end
-- pcall: a shared lock is a sorted set, where GET answers WRONGTYPE; that is "not ours".
if redis.pcall('GET', KEYS[1]) == ARGV[1] then
	return {2, tonumber(redis.call('HGET', KEYS[2], 'n'))}
end
if ARGV[5] ~= '0' then
	local t = redis.call('TIME')
	local now = t[1] * 1000 + math.floor(t[2] / 1000)
	redis.call('ZADD', KEYS[3], 'NX', now, ARGV[1])
	redis.call('HSET', KEYS[4], ARGV[1], cjson.encode({string.format('%.0f', now + tonumber(ARGV[5])), ARGV[6],
		ARGV[2], ARGV[3], ARGV[4], ARGV[7]}))
	-- Every entry's deadline is at most ARGV[5] from now, so an abandoned queue disappears with its last entry.
	redis.call('PEXPIRE', KEYS[3], ARGV[5])
	redis.call('PEXPIRE', KEYS[4], ARGV[5])
end
return {0, redis.call('PTTL', KEYS[1])}
