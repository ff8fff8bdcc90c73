-- Functions shared by the scripts. Redis scripts cannot call each other, so RedisScripts puts this file, joined into
-- ONE line, in front of each script that calls one of these functions (Redis reports such a script's line N as
-- line N + 1).
-- Rules for this file, as it becomes one line: every statement ends with 'end' or a closing bracket, and comments
-- stand only on lines of their own (those lines are dropped).
-- A shared lock is a sorted set of holders scored by expiry ('inf' for a holder without expiry). The set lives exactly
-- as long as its longest-lived holder, so an exclusive SET NX succeeds once they have all expired; an empty set is
-- gone already.
local function expireWithLongestHolder(lock)
	local top = redis.call('ZRANGE', lock, -1, -1, 'WITHSCORES')
	if top[2] == nil then
		return
	end
	if top[2] == 'inf' then
		redis.call('PERSIST', lock)
	else
		redis.call('PEXPIREAT', lock, top[2])
	end
end
