-- Makes grants without expiry lasting. Guarantees: a lock without expiry is first granted with a provisional lease
-- (acquire.lua, acquire-all.lua, or a hand-off in release.lua), and only this script, sent once its caller has the
-- grant's reply, takes that lease away; so a grant whose reply nobody got (a lost reply, a caller that timed out or
-- died) ends by itself. It acts only while the lock is still held under this owner token (exclusive, or a live shared
-- place), and then makes the lock key (a shared holder's score +inf, the set and its details persistent), the fence
-- hash and, for a lock ID, the record (TTL -1) and its ids hash persistent, as a lock without expiry keeps them. Running
-- it twice changes nothing more.
-- KEYS[4i-3] lock key, KEYS[4i-2] fence hash, KEYS[4i-1] ids hash, KEYS[4i] holders' details, of lock i
-- ARGV[2i-1] owner token, ARGV[2i] lock ID ('' none), of lock i
-- Returns per lock 1 if it is held under its token and now lasting, 0 if the token no longer holds it.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local result = {}
for i = 1, #KEYS / 4 do
	local lock = KEYS[4 * i - 3]
	local token = ARGV[2 * i - 1]
	local kind = redis.call('TYPE', lock).ok
	local held = false
	if kind == 'string' then
		if redis.call('GET', lock) == token then
			redis.call('PERSIST', lock)
			held = true
		end
	elseif kind == 'zset' then
		local score = redis.call('ZSCORE', lock, token)
		if score and (score == 'inf' or tonumber(score) > now) then
			redis.call('ZADD', lock, 'XX', '+inf', token)
			expireWithLongestHolder(lock, KEYS[4 * i])
			held = true
		end
	end
	if held then
		keepFence(KEYS[4 * i - 2], -1, 0)
		local entry = ARGV[2 * i] ~= '' and redis.call('HGET', KEYS[4 * i - 1], token)
		if entry then
			local r = cjson.decode(entry)
			if r[1] == ARGV[2 * i] then
				r[5] = -1
				redis.call('HSET', KEYS[4 * i - 1], token, cjson.encode(r))
				redis.call('PERSIST', KEYS[4 * i - 1])
			end
		end
		result[i] = 1
	else
		result[i] = 0
	end
end
return result
