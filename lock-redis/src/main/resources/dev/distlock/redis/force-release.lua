-- Forced release for operators: deletes the lock whoever holds it, exclusive or shared, and tells waiters. Guarantees:
-- the fencing counter is left alone, so the next holder still gets a larger token than the evicted one; nothing of
-- the evicted holders stays: their lock-ID records and details go with the lock (the caller drops their entries from
-- their IDs' indexes with the answer), and a fence hash kept persistent by a lock without expiry lives the retention.
-- KEYS[1] lock key, KEYS[2] ids hash, KEYS[3] holders' details, KEYS[4] fence hash
-- ARGV[1] release channel or '' when pub/sub is off, ARGV[2] the fence retention ms
-- Returns {1 if a lock was removed else 0, then owner token, lock ID of each lock-ID record removed}.
local result = {redis.call('DEL', KEYS[1])}
local records = redis.call('HGETALL', KEYS[2])
for i = 1, #records, 2 do
	result[#result + 1] = records[i]
	result[#result + 1] = cjson.decode(records[i + 1])[1]
end
redis.call('DEL', KEYS[2], KEYS[3])
if redis.call('PTTL', KEYS[4]) == -1 then
	redis.call('PEXPIRE', KEYS[4], ARGV[2])
end
if result[1] == 1 and ARGV[1] ~= '' then
	redis.call('PUBLISH', ARGV[1], '1')
end
return result
