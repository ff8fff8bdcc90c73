-- Read-only status of a page of locks, one round trip for all of them. Guarantees: one consistent snapshot of each
-- lock key and its fence hash (of all of them: a script is atomic); shared holders are counted by the server's TIME,
-- so expired places do not count. In a cluster every key of one call shares a slot (the caller groups them).
-- KEYS[2i-1] lock key, KEYS[2i] its fence hash, for each lock i of the page
-- Returns 8 fields per lock, flat: {type, remaining ms, live holders, fencing token, owner, host, acquired-at ms,
-- mode}; a lock key that is gone (released or expired since the SCAN) or is no lock (another type) reports its type
-- and nothing else, and its fence hash is not read.
local out = {}
local now
for i = 1, #KEYS, 2 do
	local kind = redis.call('TYPE', KEYS[i]).ok
	if kind == 'string' or kind == 'zset' then
		local holders = 1
		if kind == 'zset' then
			if not now then
				local t = redis.call('TIME')
				now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
			end
			holders = redis.call('ZCOUNT', KEYS[i], '(' .. now, '+inf')
		end
		local d = redis.call('HMGET', KEYS[i + 1], 'n', 'owner', 'host', 'at', 'mode')
		out[#out + 1] = kind
		out[#out + 1] = redis.call('PTTL', KEYS[i])
		out[#out + 1] = holders
		out[#out + 1] = d[1] or '0'
		out[#out + 1] = d[2] or ''
		out[#out + 1] = d[3] or ''
		out[#out + 1] = d[4] or ''
		out[#out + 1] = d[5] or ''
	else
		for _, v in ipairs({kind, -2, 0, '0', '', '', '', ''}) do
			out[#out + 1] = v
		end
	end
end
return out
