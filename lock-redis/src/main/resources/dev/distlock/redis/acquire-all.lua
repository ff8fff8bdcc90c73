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
-- KEYS[5i-4] lock key, KEYS[5i-3] fence hash, KEYS[5i-2] waiting mark, KEYS[5i-1] waiter queue, KEYS[5i] waiter
-- entries of request i
-- ARGV[6(i-1)+1..6] token, lease ms, shared ('1' or '0'), maxConcurrent, owner name, host of request i; then
-- ARGV[#ARGV-1] the fence retention ms, ARGV[#ARGV] how long the waiting mark lasts at least, in ms ('0': the caller
-- will not wait, set no mark); 'at' is the server's TIME in epoch ms
-- Returns {1, fencing token 1, fencing token 2, ...} or {0, remaining ms of the first blocking lock (PTTL)}.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local micros = tonumber(t[1]) * 1000000 + tonumber(t[2])
local n = #KEYS / 5
local retention = tonumber(ARGV[#ARGV - 1])
local mark = tonumber(ARGV[#ARGV])
local empty = {}
local mine = {}
local function refused(i)
	local lock = KEYS[5 * i - 4]
	local remaining = redis.call('PTTL', lock)
	if mark > 0 then
		redis.call('SET', KEYS[5 * i - 2], '1', 'PX', math.max(mark, remaining, 1))
	end
	return {0, remaining}
end
-- Whether an exclusive waiter of request i's key is queued and live; drops the entries whose deadline has passed.
local function writerWaits(i)
	local queue = KEYS[5 * i - 1]
	local entries = KEYS[5 * i]
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
for i = 1, n do
	local lock = KEYS[5 * i - 4]
	local a = 6 * (i - 1)
	local kind = redis.call('TYPE', lock).ok
	empty[i] = true
	if kind == 'string' and redis.call('GET', lock) == ARGV[a + 1] then
		mine[i] = true
	elseif kind == 'zset' and ARGV[a + 3] == '1'
			and tonumber(redis.call('ZSCORE', lock, ARGV[a + 1]) or '0') > now then
		mine[i] = true
	elseif ARGV[a + 3] == '1' and writerWaits(i) then
		return refused(i)
	elseif kind ~= 'none' then
		-- Three cases: held exclusively, shared by holders of which some may have expired, or free.
		if ARGV[a + 3] ~= '1' or kind ~= 'zset' then
			return refused(i)
		end
		redis.call('ZREMRANGEBYSCORE', lock, '-inf', now)
		local holders = redis.call('ZCARD', lock)
		if holders >= tonumber(ARGV[a + 4]) then
			return refused(i)
		end
		empty[i] = holders == 0
	end
end
local result = {1}
for i = 1, n do
	local lock = KEYS[5 * i - 4]
	local fence = KEYS[5 * i - 3]
	local a = 6 * (i - 1)
	if ARGV[a + 3] == '1' then
		redis.call('ZADD', lock, now + tonumber(ARGV[a + 2]), ARGV[a + 1])
		-- The set lives exactly as long as its longest-lived holder, so an exclusive SET NX succeeds once all expired.
		local top = redis.call('ZRANGE', lock, -1, -1, 'WITHSCORES')
		redis.call('PEXPIREAT', lock, top[2])
	elseif mine[i] then
		redis.call('PEXPIRE', lock, ARGV[a + 2])
	else
		redis.call('SET', lock, ARGV[a + 1], 'PX', ARGV[a + 2])
	end
	if mine[i] then
		result[i + 1] = tonumber(redis.call('HGET', fence, 'n'))
	else
		local token = math.max(tonumber(redis.call('HGET', fence, 'n') or '0') + 1, micros)
		result[i + 1] = token
		if empty[i] then
			redis.call('HSET', fence, 'n', string.format('%.0f', token), 'owner', ARGV[a + 5], 'host', ARGV[a + 6],
				'at', string.format('%.0f', now), 'mode', ARGV[a + 3] == '1' and 's' or 'x')
		else
			redis.call('HSET', fence, 'n', string.format('%.0f', token))
		end
		redis.call('PEXPIRE', fence, math.max(retention, tonumber(ARGV[a + 2])))
	end
end
return result
