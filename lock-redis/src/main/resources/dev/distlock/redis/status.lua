-- Read-only status of one lock. Guarantees: one consistent snapshot of the lock key and its fence hash; shared holders
-- are counted by the server's TIME, so expired places do not count.
-- KEYS[1] lock key, KEYS[2] fence hash
-- Returns {type, remaining ms, live holders, fencing token, owner, host, acquired-at ms, mode}.
local kind = redis.call('TYPE', KEYS[1]).ok
local pttl = redis.call('PTTL', KEYS[1])
local holders = 0
if kind == 'string' then
	holders = 1
elseif kind == 'zset' then
	local t = redis.call('TIME')
	local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
	holders = redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')
end
local d = redis.call('HMGET', KEYS[2], 'n', 'owner', 'host', 'at', 'mode')
return {kind, pttl, holders, d[1] or '0', d[2] or '', d[3] or '', d[4] or '', d[5] or ''}
