-- Functions shared by the scripts. Redis scripts cannot call each other, so LuaSources puts this file, joined into
-- ONE line, in front of each script that calls one of these functions (Redis reports such a script's line N as
-- line N + 1).
-- Rules for this file, as it becomes one line: every statement ends with 'end' or a closing bracket, and comments
-- stand only on lines of their own (those lines are dropped).
-- A shared lock is a sorted set of holders scored by expiry ('inf' for a holder without expiry), and a hash of each
-- holder's details (fencing token, owner, host, grant time). Both live exactly as long as the longest-lived holder, so
-- an exclusive SET NX succeeds once they have all expired; an empty set is gone already, and its hash goes with it.
local function expireWithLongestHolder(lock, holders)
	local top = redis.call('ZRANGE', lock, -1, -1, 'WITHSCORES')
	if top[2] == nil then
		redis.call('DEL', holders)
		return
	end
	if top[2] == 'inf' then
		redis.call('PERSIST', lock)
		redis.call('PERSIST', holders)
	else
		redis.call('PEXPIREAT', lock, top[2])
		redis.call('PEXPIREAT', holders, top[2])
	end
end
-- Removes the shared places whose expiry has passed by 'now' (server ms) and their details; the set then lives as
-- long as its longest-lived remaining holder, and is gone with the last.
local function pruneExpired(lock, holders, now)
	local gone = redis.call('ZRANGEBYSCORE', lock, '-inf', now)
	if #gone > 0 then
		redis.call('ZREMRANGEBYSCORE', lock, '-inf', now)
		redis.call('HDEL', holders, unpack(gone))
	end
	expireWithLongestHolder(lock, holders)
end
-- The answer to a replayed shared release: each one keeps '<token>' (by its handle) or '<token> unlocked' (by lock ID)
-- in the fence hash's 'rs', a list of the releases of the last 'window' ms (the newest 64 at most), so a release run
-- again answers as the first run did, whichever readers released since. pcall: a full Redis refuses the write (OOM),
-- and then only the answer to a replay is lost.
local function rememberRelease(fence, member, now, window)
	local recent = {}
	local text = redis.call('HGET', fence, 'rs')
	if text then
		for _, each in ipairs(cjson.decode(text)) do
			if each[2] > now - window then
				recent[#recent + 1] = each
			end
		end
	end
	recent[#recent + 1] = {member, now}
	local kept = {}
	for i = math.max(1, #recent - 63), #recent do
		kept[#kept + 1] = recent[i]
	end
	redis.pcall('HSET', fence, 'rs', cjson.encode(kept))
end
-- A new place for a token forgets the token's earlier releases (a late replay of its acquire granted it again), so
-- the loss of the new place is never answered as the earlier release.
local function forgetRelease(fence, token)
	local text = redis.call('HGET', fence, 'rs')
	if text then
		local kept = {}
		for _, each in ipairs(cjson.decode(text)) do
			if each[1] ~= token and each[1] ~= token .. ' unlocked' then
				kept[#kept + 1] = each
			end
		end
		redis.pcall('HSET', fence, 'rs', cjson.encode(kept))
	end
end
local function releasedBefore(fence, member)
	local text = redis.call('HGET', fence, 'rs')
	if text then
		for _, each in ipairs(cjson.decode(text)) do
			if each[1] == member then
				return true
			end
		end
	end
	return false
end
-- Lock-ID records outlive their locks by the fence retention, so renew by ID can report an expired one; the hash is
-- persistent only while a record has no expiry. After a record goes or gets a lease, a persistent hash gets the TTL of
-- its longest-lived record, never less than the retention.
local function expireIdsWithLongestRecord(ids, retention, now)
	if redis.call('PTTL', ids) ~= -1 then
		return
	end
	local longest = retention
	for _, entry in ipairs(redis.call('HVALS', ids)) do
		local r = cjson.decode(entry)
		if tonumber(r[5]) < 0 then
			return
		end
		longest = math.max(longest, tonumber(r[6] ~= '' and r[6] or r[4]) + tonumber(r[5]) - now)
	end
	redis.call('PEXPIRE', ids, math.max(1, longest))
end
-- The fence hash lives at least as long as its lock, so a holder's fencing token is always there to answer with:
-- extending a lock to leaseMs extends its fence hash when that would end sooner; a lock without expiry (leaseMs -1)
-- makes it persistent, and a persistent one whose lock gets a lease again lives the retention from then. A lock
-- already gone (leaseMs -2, the PTTL of a missing key: a lease of 1 ms can end inside the script that granted it)
-- never makes it persistent: it lives the retention.
local function keepFence(fence, leaseMs, retention)
	local ttl = redis.call('PTTL', fence)
	if leaseMs == -1 then
		redis.call('PERSIST', fence)
	elseif ttl == -1 then
		redis.call('PEXPIRE', fence, math.max(retention, leaseMs))
	elseif ttl >= 0 and ttl < leaseMs then
		redis.call('PEXPIRE', fence, leaseMs)
	end
end
