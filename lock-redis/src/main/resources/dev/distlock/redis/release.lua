-- Exclusive release: compare-and-delete, or a direct hand-off. Guarantees: the lock changes only while it holds this
-- owner token, so a stale holder never frees or passes on the next holder's lock; the releasing token is kept as
-- 'r' in the fence hash, so the same release run again (a client replaying it after a reconnect) answers 1 instead
-- of reporting a lost lock. When waiters are queued (see acquire.lua), the lock passes in the same atomic step to the
-- oldest waiter whose entry is still valid by the server's clock: the lock key takes that waiter's token and lease,
-- the fencing counter and holder details move on exactly as in acquire.lua, and the grant is published as
-- 'g <token> <fencing token> <attempt>' on the waiter's client's own grant channel, so only that waiter wakes,
-- already holding the lock. With nobody queued the lock is deleted and '1' wakes any pollers.
-- KEYS[1] lock key, KEYS[2] fence hash, KEYS[3] waiter queue, KEYS[4] waiter entries
-- ARGV[1] owner token, ARGV[2] release channel or '' when pub/sub is off (then nobody queues), ARGV[3] fence
-- retention ms
-- Returns 1 if the lock was released or passed on (now or by an earlier run of this release), 0 if the token did
-- not hold it.
-- pcall: after a takeover the key may be a shared-holder set, where GET answers WRONGTYPE; that is "not ours".
if redis.pcall('GET', KEYS[1]) ~= ARGV[1] then
	if redis.call('HGET', KEYS[2], 'r') == ARGV[1] then
		return 1
	end
	return 0
end
redis.call('HSET', KEYS[2], 'r', ARGV[1])
if ARGV[2] == '' then
	redis.call('DEL', KEYS[1])
	return 1
end
local t
while true do
	local head = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
	if not head then
		break
	end
	redis.call('ZREM', KEYS[3], head)
	local entry = redis.call('HGET', KEYS[4], head)
	redis.call('HDEL', KEYS[4], head)
	if entry then
		local waiter = cjson.decode(entry)
		t = t or redis.call('TIME')
		if tonumber(waiter[1]) > t[1] * 1000 + math.floor(t[2] / 1000) then
			redis.call('SET', KEYS[1], head, 'PX', waiter[3])
			local fence = math.max(tonumber(redis.call('HGET', KEYS[2], 'n') or '0') + 1, t[1] * 1000000 + t[2])
			redis.call('HSET', KEYS[2], 'n', string.format('%.0f', fence), 'owner', waiter[4], 'host', waiter[5],
				'at', string.format('%.0f', t[1] * 1000 + math.floor(t[2] / 1000)), 'mode', 'x')
			redis.call('PEXPIRE', KEYS[2], math.max(tonumber(ARGV[3]), tonumber(waiter[3])))
			redis.call('PUBLISH', waiter[6], 'g ' .. head .. ' ' .. string.format('%.0f', fence) .. ' ' .. waiter[2])
			return 1
		end
	end
end
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[2], '1')
return 1
