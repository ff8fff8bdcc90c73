-- Exclusive acquire, one round trip. Guarantees: the lock key is set only if it did not exist (SET NX, so any
-- holder, exclusive or shared, excludes it); the per-key fencing counter grows only on success; the holder's details
-- land in the same atomic step; running it twice with one owner token (a client replaying it after a reconnect)
-- answers "yours" the second time, never "held by someone else".
-- The fencing token is max(counter + 1, server TIME in microseconds): strictly larger than the key's last token, and
-- larger than every token issued before the counter was lost (fence retention passed, restart without persistence,
-- failover to a replica that missed writes) as long as the server clock did not go back. Lua numbers are doubles,
-- exact below 2^53 (about the year 2255 in microseconds); '%.0f' stores the integer digits, never an exponent. The
-- fence hash lives for ARGV[3] ms from this grant: the retention, never less than the lease (the caller computes it).
-- A grant costs five calls in every form (SET, TIME, HMGET of 'n' and 'r', HSET of 'n' and 'h', PEXPIRE): the holder
-- is one field 'h', '<owner>\n<host>' as the caller sends it, and the grant time is the token's, read back as token /
-- 1000 ms; only when the counter decides the token (the clock went back) is the time added as a third line.
-- Three forms. With 2 KEYS, a single attempt that never queues. With 5 KEYS, the attempt of a caller that waits for a
-- hand-off: when refused it joins the key's FIFO waiter queue (or refreshes its entry, keeping its place) and sets
-- the waiting mark, which tells release.lua to look at the queue and publish; release.lua hands the lock to the
-- queue's live head. A caller of a client without pub/sub queues too, with an empty grant channel, only so that its
-- entry keeps new shared holders out (writer priority, see acquire-all.lua); such a client's releases never hand off.
-- With 6 KEYS, a request with a lock ID or without expiry (never a plain one): as with 5 KEYS, but ARGV[5] '0' does
-- not queue; the lock ID's record goes into the ids hash, and a lock without expiry gets a provisional lease (see
-- below) until lasting.lua makes it lasting.
-- KEYS[1] lock key, KEYS[2] fence hash; with 5 or 6 KEYS also KEYS[3] waiting mark (string with a TTL),
-- KEYS[4] waiter queue (sorted set: token by arrival, server ms),
-- KEYS[5] waiter entries (hash: token -> JSON [deadline ms, attempt, lease ms, owner, host, grant channel, lock ID,
-- no expiry '1'/'0']); with 6 KEYS also KEYS[6] the ids hash (token -> JSON [lock ID, owner, host, created ms,
-- ttl ms or -1, renewed ms or '', mode])
-- ARGV[1] owner token, ARGV[2] lease ms (the provisional lease without expiry), ARGV[3] fence hash TTL ms, ARGV[4] the
-- holder, '<owner name>\n<host>' (neither has control characters); with 5 or 6 KEYS also ARGV[5] how long the queue
-- entry stays valid in ms ('0': do not queue), ARGV[6] the caller's grant channel, where release.lua publishes the
-- hand-off ('' without pub/sub), ARGV[7] the caller's queued-attempt number (from 0), echoed in the hand-off message,
-- left out for the first (with 5 KEYS, '0' then: one argument fewer for the server to take in on every waiting
-- caller's first attempt, which usually wins); with 6 KEYS also ARGV[8] the lock ID ('' none), ARGV[9] '1' for no
-- expiry. A lock without expiry is
-- granted with a provisional lease (ARGV[2], twice the attempt's bound): lasting.lua, sent once the caller has this
-- reply, takes it away, so a grant whose reply nobody got ends by itself.
-- Returns {1, fencing token} if acquired now; {2, fencing token} if this token already holds the lock (a hand-off
-- the caller has not yet heard of, or a replay; its lease is then restarted, so the answer is a write that a
-- following WAIT covers; one without expiry already lasting stays so); {0, remaining ms of the current holder (PTTL)}
-- if held by another. The fence hash lives at least as long as the lock (persistent while the lock has no expiry), so
-- {2} always carries the holder's token; if the hash was lost anyway (a restart without persistence), the token is
-- made anew from the clock as on a grant.
local granted = redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX')
if granted then
	-- The plain grant, every form's: SET, TIME, HMGET, HSET, PEXPIRE, and no closure or JSON.
	local t = redis.call('TIME')
	local last = redis.call('HMGET', KEYS[2], 'n', 'r')
	local fence = t[1] * 1000000 + t[2]
	local holder = ARGV[4]
	if last[1] and tonumber(last[1]) >= fence then
		-- The clock is behind the counter (it went back, or a grant in the same microsecond): the counter decides,
		-- and 'at' is written, as it cannot be read from the token.
		fence = tonumber(last[1]) + 1
		holder = holder .. '\n' .. string.format('%.0f', t[1] * 1000 + math.floor(t[2] / 1000))
	end
	local released = last[2]
	if released and (released == ARGV[1] or released == ARGV[1] .. ' unlocked') then
		-- This token released the key before and is granted again (a late replay of its acquire): forget that
		-- release, so the loss of this grant is never answered as the earlier release (see release.lua).
		redis.call('HDEL', KEYS[2], 'r')
	end
	redis.call('HSET', KEYS[2], 'n', string.format('%.0f', fence), 'h', holder)
	redis.call('PEXPIRE', KEYS[2], ARGV[3])
	if #KEYS == 6 and ARGV[8] ~= '' then
		-- The ids hash lives as long as the fence hash (the retention, never less than the lease), so a record of a
		-- lock whose lease ended still tells renew by ID that it expired; persistent once a record has no expiry.
		local owner, host = string.match(ARGV[4], '^(.-)\n(.*)$')
		local ttl = redis.call('PTTL', KEYS[6])
		redis.call('HSET', KEYS[6], ARGV[1], cjson.encode({ARGV[8], owner, host,
			string.format('%.0f', t[1] * 1000 + math.floor(t[2] / 1000)), tonumber(ARGV[2]), '', 'x'}))
		if ttl == -2 or (ttl >= 0 and ttl < tonumber(ARGV[3])) then
			redis.call('PEXPIRE', KEYS[6], ARGV[3])
		end
	end
	if ARGV[7] and ARGV[7] ~= '0' then -- an earlier attempt of this caller queued: leave the queue
		redis.call('ZREM', KEYS[4], ARGV[1])
		redis.call('HDEL', KEYS[5], ARGV[1])
	end
	return {1, fence}
end
-- pcall: a shared lock is a sorted set, where GET answers WRONGTYPE; that is "not ours".
if redis.pcall('GET', KEYS[1]) == ARGV[1] then
	-- A lock already lasting stays so (a replay); any other gets the lease again (provisional without expiry).
	local forever = #KEYS == 6 and ARGV[9] == '1'
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
	-- The fence hash lives at least as long as the lock (keepFence in shared.lua, written out here so that this
	-- script needs no prelude): persistent with a lock without expiry, else never ending before it.
	local lease = redis.call('PTTL', KEYS[1])
	local ttl = redis.call('PTTL', KEYS[2])
	if lease == -1 then
		redis.call('PERSIST', KEYS[2])
	elseif ttl == -1 then
		redis.call('PEXPIRE', KEYS[2], math.max(tonumber(ARGV[3]), lease))
	elseif ttl >= 0 and ttl < lease then
		redis.call('PEXPIRE', KEYS[2], lease)
	end
	if #KEYS == 6 and ARGV[8] ~= '' and redis.call('HEXISTS', KEYS[6], ARGV[1]) == 0 then
		-- A hand-off of a lock with an ID is recorded by release.lua; this restores a record lost meanwhile.
		local owner, host = string.match(ARGV[4], '^(.-)\n(.*)$')
		local ids = redis.call('PTTL', KEYS[6])
		redis.call('HSET', KEYS[6], ARGV[1], cjson.encode({ARGV[8], owner, host,
			string.format('%.0f', math.floor(tonumber(n) / 1000)), tonumber(ARGV[2]), '', 'x'}))
		if ids == -2 or (ids >= 0 and ids < tonumber(ARGV[3])) then
			redis.call('PEXPIRE', KEYS[6], ARGV[3])
		end
	end
	return {2, tonumber(n)}
end
local remaining = redis.call('PTTL', KEYS[1])
if #KEYS >= 5 and ARGV[5] ~= '0' then
	local t = redis.call('TIME')
	local now = t[1] * 1000 + math.floor(t[2] / 1000)
	local owner, host = string.match(ARGV[4], '^(.-)\n(.*)$')
	redis.call('ZADD', KEYS[4], 'NX', now, ARGV[1])
	redis.call('HSET', KEYS[5], ARGV[1], cjson.encode({string.format('%.0f', now + tonumber(ARGV[5])),
		ARGV[7] or '0', ARGV[2], owner, host, ARGV[6], ARGV[8] or '', ARGV[9] or '0'}))
	-- Every entry's deadline is at most ARGV[5] from now, so an abandoned queue disappears with its last entry.
	redis.call('PEXPIRE', KEYS[4], ARGV[5])
	redis.call('PEXPIRE', KEYS[5], ARGV[5])
	-- The mark lasts while this waiter may still rely on a message: its entry's life, or the holder's lease.
	redis.call('SET', KEYS[3], '1', 'PX', math.max(tonumber(ARGV[5]), remaining))
end
return {0, remaining}
