-- Exclusive acquire, one round trip. Guarantees: the lock key is set only if it did not exist (SET NX, so any
-- holder, exclusive or shared, excludes it); the per-key fencing counter grows only on success; the holder's details
-- land in the same atomic step; running it twice with one owner token (a client replaying it after a reconnect)
-- answers "yours" the second time, never "held by someone else".
-- The fencing token is max(counter + 1, server TIME in microseconds): strictly larger than the key's last token, and
-- larger than every token issued before the counter was lost (fence retention passed, restart without persistence,
-- failover to a replica that missed writes) as long as the server clock did not go back. Lua numbers are doubles,
-- exact below 2^53 (about the year 2255 in microseconds); '%.0f' stores the integer digits, never an exponent. The
-- fence hash lives for ARGV[3] ms from this grant: the retention, never less than the lease (the caller computes it).
-- The holder's owner, host and mode are written only when they differ from the last holder's (one client locking
-- again writes the counter and 'at' only).
-- Two forms. With 2 KEYS, a single attempt that never queues. With 5 KEYS, the attempt of a caller that waits for a
-- hand-off: when refused it joins the key's FIFO waiter queue (or refreshes its entry, keeping its place) and sets
-- the waiting mark, which tells release.lua to look at the queue and publish; release.lua hands the lock to the
-- queue's live head. A caller of a client without pub/sub queues too, with an empty grant channel, only so that its
-- entry keeps new shared holders out (writer priority, see acquire-all.lua); such a client's releases never hand off.
-- KEYS[1] lock key, KEYS[2] fence hash; with 5 KEYS also KEYS[3] waiting mark (string with a TTL),
-- KEYS[4] waiter queue (sorted set: token by arrival, server ms),
-- KEYS[5] waiter entries (hash: token -> JSON [deadline ms, attempt, lease ms, owner, host, grant channel])
-- ARGV[1] owner token, ARGV[2] lease ms, ARGV[3] fence hash TTL ms, ARGV[4] owner name, ARGV[5] host; with 5 KEYS
-- also ARGV[6] how long the queue entry stays valid in ms, ARGV[7] the caller's queued-attempt number (from 0),
-- echoed in the hand-off message, ARGV[8] the caller's grant channel, where release.lua publishes the hand-off
-- ('' without pub/sub)
-- Returns {1, fencing token} if acquired now; {2, fencing token} if this token already holds the lock (a hand-off
-- the caller has not yet heard of, or a replay; its lease is then restarted, so the answer is a write that a
-- following WAIT covers); {0, remaining ms of the current holder (PTTL)} if held by another.
if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then
	local t = redis.call('TIME')
	local last = redis.call('HMGET', KEYS[2], 'n', 'owner', 'host', 'mode')
	local fence = string.format('%.0f', math.max(tonumber(last[1] or '0') + 1, t[1] * 1000000 + t[2]))
	local at = string.format('%.0f', t[1] * 1000 + math.floor(t[2] / 1000))
	if last[2] == ARGV[4] and last[3] == ARGV[5] and last[4] == 'x' then
		redis.call('HSET', KEYS[2], 'n', fence, 'at', at)
	else
		redis.call('HSET', KEYS[2], 'n', fence, 'owner', ARGV[4], 'host', ARGV[5], 'at', at, 'mode', 'x')
	end
	redis.call('PEXPIRE', KEYS[2], ARGV[3])
	if #KEYS == 5 and ARGV[7] ~= '0' then -- an earlier attempt of this caller queued: leave the queue
		redis.call('ZREM', KEYS[4], ARGV[1])
		redis.call('HDEL', KEYS[5], ARGV[1])
	end
	return {1, tonumber(fence)}
end
-- pcall: a shared lock is a sorted set, where GET answers WRONGTYPE; that is "not ours".
if redis.pcall('GET', KEYS[1]) == ARGV[1] then
	redis.call('PEXPIRE', KEYS[1], ARGV[2])
	return {2, tonumber(redis.call('HGET', KEYS[2], 'n'))}
end
local remaining = redis.call('PTTL', KEYS[1])
if #KEYS == 5 then
	local t = redis.call('TIME')
	local now = t[1] * 1000 + math.floor(t[2] / 1000)
	redis.call('ZADD', KEYS[4], 'NX', now, ARGV[1])
	redis.call('HSET', KEYS[5], ARGV[1], cjson.encode({string.format('%.0f', now + tonumber(ARGV[6])), ARGV[7],
		ARGV[2], ARGV[4], ARGV[5], ARGV[8]}))
	-- Every entry's deadline is at most ARGV[6] from now, so an abandoned queue disappears with its last entry.
	redis.call('PEXPIRE', KEYS[4], ARGV[6])
	redis.call('PEXPIRE', KEYS[5], ARGV[6])
	-- The mark lasts while this waiter may still rely on a message: its entry's life, or the holder's lease.
	redis.call('SET', KEYS[3], '1', 'PX', math.max(tonumber(ARGV[6]), remaining))
end
return {0, remaining}
