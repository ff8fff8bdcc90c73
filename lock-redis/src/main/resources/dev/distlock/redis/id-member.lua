-- One member of a lock ID's index, for unlock and renew by ID. Guarantees: acts only on the record of this owner token
-- taken under this lock ID (a token is never reused, so a replay changes nothing more); a renewal moves the lease to
-- ARGV[3] ms from the server's TIME only while the token still holds the lock, and records the TTL and the renewal
-- time; the set of a shared lock lives as long as its longest-lived holder, the fence hash at least as long as the
-- lock, and a persistent ids hash left without a record of no expiry gets a TTL (see shared.lua), so renewing a lock
-- without expiry to a lease leaves no key for ever.
-- KEYS[1] lock key, KEYS[2] fence hash, KEYS[3] ids hash, KEYS[4] shared holders' details
-- ARGV[1] owner token, ARGV[2] lock ID, ARGV[3] the new lease in ms, '0' to only read, '-1' to read and drop the
-- record when the token no longer holds the lock, ARGV[4] the fence retention ms
-- Returns {state, mode, owner, host, fencing token, created ms, ttl ms or -1, renewed ms or '', remaining ms or -1},
-- all as text; state '1' held (and renewed), '0' recorded but expired, '-1' no record of this token under this ID
-- (then nothing else).
local entry = redis.call('HGET', KEYS[3], ARGV[1])
if not entry then
	return {'-1'}
end
local r = cjson.decode(entry)
if r[1] ~= ARGV[2] then
	return {'-1'}
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local kind = redis.call('TYPE', KEYS[1]).ok
local held = false
local remaining = 0
if kind == 'string' then
	held = redis.call('GET', KEYS[1]) == ARGV[1]
	remaining = redis.call('PTTL', KEYS[1])
elseif kind == 'zset' then
	local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
	if score == 'inf' then
		held = true
		remaining = -1
	elseif score and tonumber(score) > now then
		held = true
		remaining = tonumber(score) - now
	elseif score then
		-- Expired by this script's clock, while the set may live until the end of this millisecond: see extend-shared.
		pruneExpired(KEYS[1], KEYS[4], now)
	end
end
local fence = redis.call('HGET', KEYS[2], 'n') or '0'
if not held then
	if ARGV[3] == '-1' then
		redis.call('HDEL', KEYS[3], ARGV[1])
		expireIdsWithLongestRecord(KEYS[3], tonumber(ARGV[4]), now)
	end
	return {'0', r[7], r[2], r[3], fence, tostring(r[4]), string.format('%.0f', r[5]), tostring(r[6]), '0'}
end
local ttl = tonumber(ARGV[3])
if ttl > 0 then
	if kind == 'string' then
		redis.call('PEXPIRE', KEYS[1], ttl)
	else
		redis.call('ZADD', KEYS[1], 'XX', now + ttl, ARGV[1])
		expireWithLongestHolder(KEYS[1], KEYS[4])
	end
	keepFence(KEYS[2], redis.call('PTTL', KEYS[1]), tonumber(ARGV[4]))
	r[5] = ttl
	r[6] = string.format('%.0f', now)
	redis.call('HSET', KEYS[3], ARGV[1], cjson.encode(r))
	local hashTtl = redis.call('PTTL', KEYS[3])
	if hashTtl >= 0 and hashTtl < ttl then
		redis.call('PEXPIRE', KEYS[3], ttl)
	end
	expireIdsWithLongestRecord(KEYS[3], tonumber(ARGV[4]), now)
	remaining = ttl
end
return {'1', r[7], r[2], r[3], fence, tostring(r[4]), string.format('%.0f', r[5]), tostring(r[6]),
	string.format('%.0f', remaining)}
