-- Read-only status of a page of locks, one round trip for all of them. Guarantees: one consistent snapshot of each
-- lock key, its fence hash and its ids hash (of all of them: a script is atomic); shared holders are counted by the
-- server's TIME, so expired places do not count. In a cluster every key of one call shares a slot (the caller groups
-- them).
-- KEYS[3i-2] lock key, KEYS[3i-1] its fence hash, KEYS[3i] its ids hash, for each lock i of the page
-- Returns 11 fields per lock, flat: {type, remaining ms (-1: no expiry), live holders, fencing token, owner, host,
-- acquired-at ms, mode, lock ID, renewed-at ms, ttl ms ('-1' none, '' not recorded)}; a lock key that is gone
-- (released or expired since the SCAN) or is no lock (another type) reports its type and nothing else, and its
-- hashes are not read. The lock ID is the holder's (exclusive) or that of the earliest-created live holder that has
-- one (shared).
local out = {}
local now
for i = 1, #KEYS, 3 do
	local kind = redis.call('TYPE', KEYS[i]).ok
	if kind == 'string' or kind == 'zset' then
		local holders = 1
		local record
		if kind == 'zset' then
			if not now then
				local t = redis.call('TIME')
				now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
			end
			local live = redis.call('ZRANGEBYSCORE', KEYS[i], '(' .. now, '+inf')
			holders = #live
			if holders > 0 and redis.call('EXISTS', KEYS[i + 2]) == 1 then
				for _, entry in ipairs(redis.call('HMGET', KEYS[i + 2], unpack(live))) do
					if entry then
						local r = cjson.decode(entry)
						if not record or tonumber(r[4]) < tonumber(record[4]) then
							record = r
						end
					end
				end
			end
		else
			local entry = redis.call('HGET', KEYS[i + 2], redis.call('GET', KEYS[i]))
			if entry then
				record = cjson.decode(entry)
			end
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
		if record then
			out[#out + 1] = record[1]
			out[#out + 1] = tostring(record[6])
			out[#out + 1] = string.format('%.0f', record[5])
		else
			out[#out + 1] = ''
			out[#out + 1] = ''
			out[#out + 1] = ''
		end
	else
		for _, v in ipairs({kind, -2, 0, '0', '', '', '', '', '', '', ''}) do
			out[#out + 1] = v
		end
	end
end
return out
