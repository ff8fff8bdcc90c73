-- Read-only status of a page of locks, one round trip for all of them. Guarantees: one consistent snapshot of each
-- lock key, its fence hash, its ids hash and its shared holders' details (of all of them: a script is atomic); shared
-- holders are counted by the server's TIME, so expired places do not count. In a cluster every key of one call shares
-- a slot (the caller groups them).
-- KEYS[4i-3] lock key, KEYS[4i-2] its fence hash, KEYS[4i-1] its ids hash, KEYS[4i] its shared holders' details, for
-- each lock i of the page
-- Returns 12 fields per lock, flat: {type, remaining ms (-1: no expiry), live holders, fencing token, owner, host,
-- acquired-at ms, mode, lock ID, renewed-at ms, ttl ms ('-1' none, '' not recorded), holders}; a lock key that is gone
-- (released or expired since the SCAN) or is no lock (another type) reports its type and nothing else, and its
-- hashes are not read. The lock ID is the holder's (exclusive) or that of the earliest-created live holder that has
-- one (shared). 'holders' lists every live shared holder, 8 texts each: owner, host, acquired-at ms, lock ID,
-- renewed-at ms, ttl ms ('-1' none, '' not recorded), remaining ms (-1: no expiry), fencing token ('' unknown); it is
-- empty for an exclusive lock.
local out = {}
local now
for i = 1, #KEYS, 4 do
	local kind = redis.call('TYPE', KEYS[i]).ok
	if kind == 'string' or kind == 'zset' then
		local holders = 1
		local record
		local each = {}
		if kind == 'zset' then
			if not now then
				local t = redis.call('TIME')
				now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
			end
			local live = redis.call('ZRANGEBYSCORE', KEYS[i], '(' .. now, '+inf', 'WITHSCORES')
			holders = #live / 2
			for j = 1, #live, 2 do
				local token = live[j]
				local entry = redis.call('HGET', KEYS[i + 2], token)
				local r = entry and cjson.decode(entry)
				if r and (not record or tonumber(r[4]) < tonumber(record[4])) then
					record = r
				end
				local detail = redis.call('HGET', KEYS[i + 3], token)
				local d = detail and cjson.decode(detail) or {'', '', '', ''}
				each[#each + 1] = r and r[2] or d[2]
				each[#each + 1] = r and r[3] or d[3]
				each[#each + 1] = r and tostring(r[4]) or d[4]
				each[#each + 1] = r and r[1] or ''
				each[#each + 1] = r and tostring(r[6]) or ''
				each[#each + 1] = r and string.format('%.0f', r[5]) or ''
				each[#each + 1] = (live[j + 1] == 'inf' or live[j + 1] == '+inf') and '-1'
					or string.format('%.0f', tonumber(live[j + 1]) - now)
				each[#each + 1] = d[1]
			end
		else
			local entry = redis.call('HGET', KEYS[i + 2], redis.call('GET', KEYS[i]))
			if entry then
				record = cjson.decode(entry)
			end
		end
		-- The holder 'h' is '<owner>\n<host>', plus '\n<at ms>' when the grant time is not the token's (token / 1000);
		-- a hash written before 'h' existed has 'owner', 'host' and 'at'.
		local d = redis.call('HMGET', KEYS[i + 1], 'n', 'h', 'owner', 'host', 'at')
		local owner, host, at = d[3] or '', d[4] or '', d[5] or ''
		if d[2] then
			owner, host, at = string.match(d[2], '^(.-)\n([^\n]*)\n?(%d*)$')
			if at == '' and d[1] then
				at = string.format('%.0f', math.floor(tonumber(d[1]) / 1000))
			end
		end
		out[#out + 1] = kind
		out[#out + 1] = redis.call('PTTL', KEYS[i])
		out[#out + 1] = holders
		out[#out + 1] = d[1] or '0'
		out[#out + 1] = owner or ''
		out[#out + 1] = host or ''
		out[#out + 1] = at or ''
		out[#out + 1] = kind == 'zset' and 's' or 'x'
		if record then
			out[#out + 1] = record[1]
			out[#out + 1] = tostring(record[6])
			out[#out + 1] = string.format('%.0f', record[5])
		else
			out[#out + 1] = ''
			out[#out + 1] = ''
			out[#out + 1] = ''
		end
		out[#out + 1] = each
	else
		for _, v in ipairs({kind, -2, 0, '0', '', '', '', '', '', '', '', {}}) do
			out[#out + 1] = v
		end
	end
end
return out
