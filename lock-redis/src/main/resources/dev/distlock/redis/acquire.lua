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
-- Three forms. With 2 KEYS, a single attempt that never queues. With 5 KEYS, the attempt of a caller that waits for a
-- hand-off: when refused it joins the key's FIFO waiter queue (or refreshes its entry, keeping its place) and sets
-- the waiting mark, which tells release.lua to look at the queue and publish; release.lua hands the lock to the
-- queue's live head. A caller of a client without pub/sub queues too, with an empty grant channel, only so that its
-- entry keeps new shared holders out (writer priority, see acquire-all.lua); such a client's releases never hand off.
-- With 6 KEYS, a request with a lock ID or without expiry (never a plain one): as with 5 KEYS, but ARGV[6] '0' does
-- not queue; the lock ID's record goes into the ids hash, and a lock without expiry gets a provisional lease (see
-- below) until lasting.lua makes it lasting.
-- KEYS[1] lock key, KEYS[2] fence hash; with 5 or 6 KEYS also KEYS[3] waiting mark (string with a TTL),
-- KEYS[4] waiter queue (sorted set: token by arrival, server ms),
-- KEYS[5] waiter entries (hash: token -> JSON [deadline ms, attempt, lease ms, owner, host, grant channel, lock ID,
-- no expiry '1'/'0']); with 6 KEYS also KEYS[6] the ids hash (token -> JSON [lock ID, owner, host, created ms,
-- ttl ms or -1, renewed ms or '', mode])
-- ARGV[1] owner token, ARGV[2] lease ms (the provisional lease without expiry), ARGV[3] fence hash TTL ms, ARGV[4] owner name, ARGV[5] host; with 5 or 6 KEYS
-- also ARGV[6] how long the queue entry stays valid in ms ('0': do not queue), ARGV[7] the caller's queued-attempt
-- number (from 0), echoed in the hand-off message, ARGV[8] the caller's grant channel, where release.lua publishes the
-- hand-off ('' without pub/sub); with 6 KEYS also ARGV[9] the lock ID ('' none), ARGV[10] '1' for no expiry
-- Returns {1, fencing token} if acquired now; {2, fencing token} if this token already holds the lock (a hand-off
-- the caller has not yet heard of, or a replay; its lease is then restarted, so the answer is a write that a
-- following WAIT covers; one without expiry already lasting stays so); {0, remaining ms of the current holder (PTTL)}
-- if held by another. The fence hash lives at least as long as the lock (persistent while the lock has no expiry), so
-- {2} always carries the holder's token; if
-- the hash was lost anyway (a restart without persistence), the token is made anew from the clock as on a grant.
local ids = #KEYS == 6
-- A lock without expiry is granted with a provisional lease (ARGV[2], twice the attempt's bound): lasting.lua, sent
-- once the caller has this reply, takes it away, so a grant whose reply nobody got ends by itself.
local forever = ids and ARGV[10] == '1'
local granted = redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX')
local function record(at)
	if ids and ARGV[9] ~= '' then
		-- The hash lives as long as the fence hash (the retention, never less than the lease), so a record of a lock
		-- whose lease ended still tells renew by ID that it expired; persistent once a record has no expiry.
		local ttl = redis.call('PTTL', KEYS[6])
		redis.call('HSET', KEYS[6], ARGV[1], cjson.encode({ARGV[9], ARGV[4], ARGV[5], at, tonumber(ARGV[2]), '',
			'x'}))
		if ttl == -2 or (ttl >= 0 and ttl < tonumber(ARGV[3])) then
			redis.call('PEXPIRE', KEYS[6], ARGV[3])
		end
	end
end
if granted then
	local t = redis.call('TIME')
	local last = redis.call('HMGET', KEYS[2], 'n', 'owner', 'host', 'mode', 'r')
	if last[5] == ARGV[1] or last[5] == ARGV[1] .. ' unlocked' then
		-- This token released the key before and is granted again (a late replay of its acquire): forget that
		-- release, so the loss of this grant is never answered as the earlier release (see release.lua).
		redis.call('HDEL', KEYS[2], 'r')
	end
	local fence = string.format('%.0f', math.max(tonumber(last[1] or '0') + 1, t[1] * 1000000 + t[2]))
	local at = string.format('%.0f', t[1] * 1000 + math.floor(t[2] / 1000))
	if last[2] == ARGV[4] and last[3] == ARGV[5] and last[4] == 'x' then
		redis.call('HSET', KEYS[2], 'n', fence, 'at', at)
	else
		redis.call('HSET', KEYS[2], 'n', fence, 'owner', ARGV[4], 'host', ARGV[5], 'at', at, 'mode', 'x')
	end
	redis.call('PEXPIRE', KEYS[2], ARGV[3])
	record(at)
	if #KEYS >= 5 and ARGV[7] ~= '0' then -- an earlier attempt of this caller queued: leave the queue
		redis.call('ZREM', KEYS[4], ARGV[1])
		redis.call('HDEL', KEYS[5], ARGV[1])
	end
	return {1, tonumber(fence)}
end
-- pcall: a shared lock is a sorted set, where GET answers WRONGTYPE; that is "not ours".
if redis.pcall('GET', KEYS[1]) == ARGV[1] then
	-- A lock already lasting stays so (a replay); any other gets the lease again (provisional without expiry).
	if not (forever and redis.call('PTTL', KEYS[1]) == -1) then
		redis.call('PEXPIRE', KEYS[1], ARGV[2])
	end
	local n = redis.call('HGET', KEYS[2], 'n')
	if not n then
		local t = redis.call('TIME')
		n = string.format('%.0f', t[1] * 1000000 + t[2])
		redis.call('HSET', KEYS[2], 'n', n)
		redis.call('PEXPIRE', KEYS[2], ARGV[3])
	end
	keepFence(KEYS[2], redis.call('PTTL', KEYS[1]), tonumber(ARGV[3]))
	if ids and ARGV[9] ~= '' and redis.call('HEXISTS', KEYS[6], ARGV[1]) == 0 then
		record(redis.call('HGET', KEYS[2], 'at') or '')
	end
	return {2, tonumber(n)}
end
local remaining = redis.call('PTTL', KEYS[1])
if #KEYS >= 5 and ARGV[6] ~= '0' then
	local t = redis.call('TIME')
	local now = t[1] * 1000 + math.floor(t[2] / 1000)
	redis.call('ZADD', KEYS[4], 'NX', now, ARGV[1])
	redis.call('HSET', KEYS[5], ARGV[1], cjson.encode({string.format('%.0f', now + tonumber(ARGV[6])), ARGV[7],
		ARGV[2], ARGV[4], ARGV[5], ARGV[8], ARGV[9] or '', ARGV[10] or '0'}))
	-- Every entry's deadline is at most ARGV[6] from now, so an abandoned queue disappears with its last entry.
	redis.call('PEXPIRE', KEYS[4], ARGV[6])
	redis.call('PEXPIRE', KEYS[5], ARGV[6])
	-- The mark lasts while this waiter may still rely on a message: its entry's life, or the holder's lease.
	redis.call('SET', KEYS[3], '1', 'PX', math.max(tonumber(ARGV[6]), remaining))
end
return {0, remaining}
