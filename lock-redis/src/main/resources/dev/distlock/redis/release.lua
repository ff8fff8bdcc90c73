-- Exclusive release: compare-and-delete, or a direct hand-off. Guarantees: the lock changes only while it holds this
-- owner token, so a stale holder never frees or passes on the next holder's lock; the release is kept as 'r' in the
-- fence hash ('<token>' by its handle, '<token> unlocked' by lock ID), so the same release run again (a client
-- replaying it after a reconnect) answers 1 instead of reporting a lost lock, as long as no later holder of the key
-- released since (then it answers 0, "lost": the safe direction). The fence hash lives at least as long as the lock
-- (see keepFence in shared.lua), so this HSET never re-creates it without a TTL; one kept persistent by a lock
-- without expiry (ARGV[6] '1') lives the retention from the release.
-- The waiting mark (set by every refused attempt of a caller that waits, see acquire.lua and acquire-all.lua) is
-- deleted with the lock in one DEL; only if it was there does the release look at the queue and publish. When waiters
-- are queued, the lock passes in the same atomic step to the oldest waiter whose entry is still valid by the server's
-- clock: the lock key takes that waiter's token and lease, the fencing counter and holder details move on as in
-- acquire.lua (the holder with its grant time as a third line), and the grant is published as
-- 'g <token> <fencing token> <attempt>' on the waiter's client's own grant channel, so only that waiter wakes, already
-- holding the lock. With nobody queued the lock is deleted and '1'
-- on '<lock key>:released' wakes any other waiter. A client without pub/sub never hands off, but still publishes when
-- the mark was there, as waiters of other clients may rely on it.
-- Lock IDs: a lock taken under one (ARGV[5] '1', or '2' for a release by ID) drops its record from the ids hash (which
-- then gets a TTL if no record without expiry is left); a release by ID is remembered as '<token> unlocked', so its
-- own replay answers 1 and the holder's own later release reports the lock lost, not released. A hand-off to a waiter
-- with a lock ID records it there; one to a waiter without expiry is provisional (a lease of the queue stay, so a
-- waiter that died does not hold it for ever) until the waiter takes it (acquire.lua's answer 2).
-- Two forms. With 6 KEYS, as above. With 5 KEYS (no ids hash), the lean release of a plain lock (no lock ID, with
-- expiry) of a client without fencing tokens, whether its plain SET NX GET or a hand-off granted it: no replay record
-- is read or written, so a release with nobody waiting is GET and DEL only, and none makes a fence hash. A key that
-- is gone answers -1 (the caller tells a replay of its own release from an expiry by its own lease), one held by
-- another token 0. A hand-off is as in the 6-KEYS form. ARGV[5] and ARGV[6] are then '0' or left out.
-- KEYS[1] lock key, KEYS[2] fence hash, KEYS[3] waiting mark, KEYS[4] waiter queue, KEYS[5] waiter entries,
-- KEYS[6] ids hash
-- ARGV[1] owner token, ARGV[2] '1' when this client tells waiters over pub/sub (and hands off), else '0',
-- ARGV[3] fence retention ms, ARGV[4] how long a queue entry stays valid in ms (the mark is set again for it after a
-- hand-off, as more waiters may be queued), ARGV[5] '1' when the lock was taken under a lock ID, '2' when it is
-- released by ID, else '0', ARGV[6] '1' when the lock may have no expiry (it was taken without, or is released by ID),
-- ARGV[7] '1' for the cleanup of a caller that has gone (its queue entry is withdrawn first); ARGV[5] to ARGV[7] are
-- left out when all three are '0' (a handle's release of a plain lock: three arguments fewer for the server to take in)
-- Returns 1 if the lock was released or passed on (now or by an earlier run of this release), 0 if the token did
-- not hold it; with 5 KEYS -1 if the key was gone.
local t
local idMode = ARGV[5] or '0'
if ARGV[7] == '1' then
	redis.call('ZREM', KEYS[4], ARGV[1])
	redis.call('HDEL', KEYS[5], ARGV[1])
end
if idMode ~= '0' then
	t = redis.call('TIME')
	redis.call('HDEL', KEYS[6], ARGV[1])
	expireIdsWithLongestRecord(KEYS[6], tonumber(ARGV[3]), t[1] * 1000 + math.floor(t[2] / 1000))
end
local member = idMode == '2' and ARGV[1] .. ' unlocked' or ARGV[1]
local lean = #KEYS == 5
-- pcall: after a takeover the key may be a shared-holder set, where GET answers WRONGTYPE; that is "not ours".
local holder = redis.pcall('GET', KEYS[1])
if holder ~= ARGV[1] then
	if lean then
		return holder == false and -1 or 0
	end
	if redis.call('HGET', KEYS[2], 'r') == member then
		return 1
	end
	return 0
end
local waited = redis.call('DEL', KEYS[1], KEYS[3]) == 2
if not lean then
	-- pcall: under maxmemory with noeviction a full Redis refuses writes that add data (OOM), but DEL is allowed; the
	-- lock is free then, and only the answer to a replay of this release is lost.
	redis.pcall('HSET', KEYS[2], 'r', member)
	if ARGV[6] == '1' and redis.call('PTTL', KEYS[2]) == -1 then
		redis.call('PEXPIRE', KEYS[2], ARGV[3])
	end
end
if not waited then
	return 1 -- nobody marked the lock as waited for
end
if ARGV[2] ~= '1' then
	-- This client has no pub/sub, but waiters of other clients may: wake them (they take the lock by an attempt).
	redis.call('PUBLISH', KEYS[1] .. ':released', '1')
	return 1
end
while true do
	local head = redis.call('ZRANGE', KEYS[4], 0, 0)[1]
	if not head then
		break
	end
	redis.call('ZREM', KEYS[4], head)
	local entry = redis.call('HGET', KEYS[5], head)
	redis.call('HDEL', KEYS[5], head)
	if entry then
		local waiter = cjson.decode(entry)
		t = t or redis.call('TIME')
		if tonumber(waiter[1]) > t[1] * 1000 + math.floor(t[2] / 1000) then
			local at = string.format('%.0f', t[1] * 1000 + math.floor(t[2] / 1000))
			-- A waiter without expiry gets a provisional lease of the queue stay: it makes the lock its own for good
			-- when it takes it (acquire.lua's answer 2), and a waiter that died meanwhile holds it no longer than that.
			local provisional = waiter[8] == '1'
			local lease = provisional and ARGV[4] or waiter[3]
			redis.call('SET', KEYS[1], head, 'PX', lease)
			if waiter[7] and waiter[7] ~= '' then
				local ttl = redis.call('PTTL', KEYS[6])
				redis.call('HSET', KEYS[6], head, cjson.encode({waiter[7], waiter[4], waiter[5], at, tonumber(lease), '',
					'x'}))
				if ttl == -2 or (ttl >= 0 and ttl < math.max(tonumber(ARGV[3]), tonumber(lease))) then
					redis.call('PEXPIRE', KEYS[6], math.max(tonumber(ARGV[3]), tonumber(lease)))
				end
			end
			redis.call('SET', KEYS[3], '1', 'PX', ARGV[4])
			local fence = math.max(tonumber(redis.call('HGET', KEYS[2], 'n') or '0') + 1, t[1] * 1000000 + t[2])
			redis.call('HSET', KEYS[2], 'n', string.format('%.0f', fence), 'h', waiter[4] .. '\n' .. waiter[5] .. '\n' .. at)
			redis.call('PEXPIRE', KEYS[2], math.max(tonumber(ARGV[3]), tonumber(lease)))
			-- A waiter of a client without pub/sub has no grant channel: it finds the lock its own on its next attempt.
			if waiter[6] ~= '' then
				redis.call('PUBLISH', waiter[6], 'g ' .. head .. ' ' .. string.format('%.0f', fence) .. ' ' .. waiter[2])
			end
			return 1
		end
	end
end
redis.call('PUBLISH', KEYS[1] .. ':released', '1')
return 1
