-- All-or-nothing acquire of one or more locks, exclusive or shared, in one atomic step. Used for shared locks and for
-- groups whose keys share a cluster slot. Guarantees: nothing is written unless every lock can be taken; an
-- exclusive lock needs its key absent; a shared lock needs its key absent or a set of shared holders with room after
-- pruning the holders whose expiry (by the server's TIME) has passed; each grant sets that key's fencing counter to
-- max(counter + 1, server TIME in microseconds), as acquire.lua does, so tokens also outlive a loss of data; each fence
-- hash lives for the retention, never less than the lease. A lock this token already holds (the same call replayed
-- after a reconnect) counts as taken, with its current fencing token, and its lease is restarted (so the answer is a
-- write that a following WAIT covers); a replay never reports "held". A refused caller that will wait sets the
-- blocking lock's waiting mark, so its release publishes (see release.lua). Writer priority: a new shared holder is
-- refused while the key's waiter queue (only exclusive waiters queue) has an entry whose deadline is still ahead by
-- the server's TIME, so the readers already in leave and the writer gets in; entries past their deadline are dropped.
-- Lock IDs: a shared request with a lock ID is refused while another live holder of the key has the same ID (by the
-- ids hash); a request with a lock ID records it in the ids hash; a lock without expiry is granted with a provisional
-- lease (its ARGV lease, twice the attempt's bound) that lasting.lua, sent once the caller has the reply, takes away
-- (score +inf and no expiry on the set when shared), so a grant whose reply nobody got ends by itself.
-- Each shared holder's fencing token, owner, host and grant time are kept in the key's holders' details, which live
-- as long as the set, so a replayed shared acquire answers with its own token (not the key's latest) and status can
-- name every holder. The fence hash lives at least as long as the lock (persistent while it has no expiry).
-- KEYS[7i-6] lock key, KEYS[7i-5] fence hash, KEYS[7i-4] waiting mark, KEYS[7i-3] waiter queue, KEYS[7i-2] waiter
-- entries, KEYS[7i-1] ids hash, KEYS[7i] holders' details (hash: token -> JSON [fencing token, owner, host, at ms])
-- of request i
-- ARGV[8(i-1)+1..8] token, lease ms, shared ('1' or '0'), maxConcurrent, owner name, host, lock ID ('' none), no
-- expiry ('1' or '0') of request i; then ARGV[#ARGV-1] the fence retention ms, ARGV[#ARGV] how long the waiting mark
-- lasts at least, in ms ('0': the caller will not wait, set no mark); 'at' is the server's TIME in epoch ms
-- Returns {1, fencing token 1, fencing token 2, ...} or {0, remaining ms of the first blocking lock (PTTL)}.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local micros = tonumber(t[1]) * 1000000 + tonumber(t[2])
local n = #KEYS / 7
local retention = tonumber(ARGV[#ARGV - 1])
local mark = tonumber(ARGV[#ARGV])
-- A holder's expiry score; 'inf' for a holder without expiry.
local function score(text)
	if text == 'inf' or text == '+inf' then
		return math.huge
	end
	return tonumber(text or '0')
end
local empty = {}
local mine = {}
local function refused(i)
	local lock = KEYS[7 * i - 6]
	local remaining = redis.call('PTTL', lock)
	if mark > 0 then
		redis.call('SET', KEYS[7 * i - 4], '1', 'PX', math.max(mark, remaining, 1))
	end
	return {0, remaining}
end
-- Whether an exclusive waiter of request i's key is queued and live; drops the entries whose deadline has passed.
local function writerWaits(i)
	local queue = KEYS[7 * i - 3]
	local entries = KEYS[7 * i - 2]
	for _, token in ipairs(redis.call('ZRANGE', queue, 0, -1)) do
		local entry = redis.call('HGET', entries, token)
		if entry and tonumber(cjson.decode(entry)[1]) > now then
			return true
		end
		redis.call('ZREM', queue, token)
		redis.call('HDEL', entries, token)
	end
	return false
end
-- Whether another live shared holder of request i's key was taken under the same lock ID.
local function sameIdHolds(i, a)
	if ARGV[a + 7] == '' then
		return false
	end
	local holders = redis.call('ZRANGEBYSCORE', KEYS[7 * i - 6], '(' .. now, '+inf')
	if #holders == 0 then
		return false
	end
	local records = redis.call('HMGET', KEYS[7 * i - 1], unpack(holders))
	for j = 1, #holders do
		if records[j] and holders[j] ~= ARGV[a + 1] and cjson.decode(records[j])[1] == ARGV[a + 7] then
			return true
		end
	end
	return false
end
for i = 1, n do
	local lock = KEYS[7 * i - 6]
	local a = 8 * (i - 1)
	local kind = redis.call('TYPE', lock).ok
	empty[i] = true
	if kind == 'string' and redis.call('GET', lock) == ARGV[a + 1] then
		mine[i] = true
	elseif kind == 'zset' and ARGV[a + 3] == '1'
			and score(redis.call('ZSCORE', lock, ARGV[a + 1])) > now then
		mine[i] = true
	elseif ARGV[a + 3] == '1' and writerWaits(i) then
		return refused(i)
	elseif kind ~= 'none' then
		-- Three cases: held exclusively, shared by holders of which some may have expired, or free.
		if ARGV[a + 3] ~= '1' or kind ~= 'zset' then
			return refused(i)
		end
		local gone = redis.call('ZRANGEBYSCORE', lock, '-inf', now)
		if #gone > 0 then
			redis.call('ZREMRANGEBYSCORE', lock, '-inf', now)
			redis.call('HDEL', KEYS[7 * i], unpack(gone))
		end
		local holders = redis.call('ZCARD', lock)
		if holders >= tonumber(ARGV[a + 4]) or sameIdHolds(i, a) then
			return refused(i)
		end
		empty[i] = holders == 0
	end
end
local result = {1}
for i = 1, n do
	local lock = KEYS[7 * i - 6]
	local fence = KEYS[7 * i - 5]
	local a = 8 * (i - 1)
	local forever = ARGV[a + 8] == '1'
	local shared = ARGV[a + 3] == '1'
	-- Without expiry, the lease (ARGV) is provisional until lasting.lua; a place or lock already lasting stays so.
	if shared then
		if not (forever and mine[i] and redis.call('ZSCORE', lock, ARGV[a + 1]) == 'inf') then
			redis.call('ZADD', lock, now + tonumber(ARGV[a + 2]), ARGV[a + 1])
		end
		if not mine[i] then
			forgetRelease(fence, ARGV[a + 1])
		end
	elseif mine[i] then
		if not (forever and redis.call('PTTL', lock) == -1) then
			redis.call('PEXPIRE', lock, ARGV[a + 2])
		end
	else
		redis.call('SET', lock, ARGV[a + 1], 'PX', ARGV[a + 2])
		local released = redis.call('HGET', fence, 'r')
		if released == ARGV[a + 1] or released == ARGV[a + 1] .. ' unlocked' then
			redis.call('HDEL', fence, 'r') -- granted again after its own release: see acquire.lua
		end
	end
	if mine[i] then
		local own = shared and redis.call('HGET', KEYS[7 * i], ARGV[a + 1])
		local n = own and cjson.decode(own)[1] or redis.call('HGET', fence, 'n')
		if not n then
			-- The fence hash was lost (a restart without persistence): a new token from the clock, as on a grant.
			n = string.format('%.0f', micros)
			redis.call('HSET', fence, 'n', n)
			redis.call('PEXPIRE', fence, math.max(retention, tonumber(ARGV[a + 2])))
		end
		result[i + 1] = tonumber(n)
	else
		local token = math.max(tonumber(redis.call('HGET', fence, 'n') or '0') + 1, micros)
		result[i + 1] = token
		if empty[i] then
			-- The holder as acquire.lua writes it, with the grant time as a third line: later shared holders move
			-- the counter on but not the first holder's details.
			redis.call('HSET', fence, 'n', string.format('%.0f', token), 'h',
				ARGV[a + 5] .. '\n' .. ARGV[a + 6] .. '\n' .. string.format('%.0f', now))
		else
			redis.call('HSET', fence, 'n', string.format('%.0f', token))
		end
		redis.call('PEXPIRE', fence, math.max(retention, tonumber(ARGV[a + 2])))
		if shared then
			redis.call('HSET', KEYS[7 * i], ARGV[a + 1], cjson.encode({string.format('%.0f', token), ARGV[a + 5],
				ARGV[a + 6], string.format('%.0f', now)}))
		end
	end
	if shared then
		expireWithLongestHolder(lock, KEYS[7 * i])
	end
	keepFence(fence, redis.call('PTTL', lock), retention)
	if ARGV[a + 7] ~= '' and not (mine[i] and redis.call('HEXISTS', KEYS[7 * i - 1], ARGV[a + 1]) == 1) then
		-- The hash lives as long as the fence hash (the retention, never less than the lease), so a record of a lock
		-- whose lease ended still tells renew by ID that it expired; persistent once a record has no expiry.
		local ttl = redis.call('PTTL', KEYS[7 * i - 1])
		redis.call('HSET', KEYS[7 * i - 1], ARGV[a + 1], cjson.encode({ARGV[a + 7], ARGV[a + 5], ARGV[a + 6],
			string.format('%.0f', now), tonumber(ARGV[a + 2]), '', ARGV[a + 3] == '1' and 's' or 'x'}))
		if ttl == -2 or (ttl >= 0 and ttl < math.max(retention, tonumber(ARGV[a + 2]))) then
			redis.call('PEXPIRE', KEYS[7 * i - 1], math.max(retention, tonumber(ARGV[a + 2])))
		end
	end
end
return result
