-- Holder check: whether ARGV[1] holds KEYS[1] right now, as its only holder or as one of its live shared holders.
-- Guarantees: reads only. No TTL, counter, record or queue changes, so it is safe on a lock without expiry (an
-- extend would give it a TTL) and answers the same when replayed.
-- KEYS[1] lock key; ARGV[1] owner token
-- Returns 1 if the lock is held under this token, 0 if not.
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'string' then
	if redis.call('GET', KEYS[1]) == ARGV[1] then
		return 1
	end
	return 0
end
if kind == 'zset' then
	local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
	if not score then
		return 0
	end
	if score == 'inf' or score == '+inf' then
		return 1
	end
	local t = redis.call('TIME')
	if tonumber(score) > tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) then
		return 1
	end
end
return 0
