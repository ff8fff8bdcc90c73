-- Forced release for operators: deletes the lock whoever holds it, exclusive or shared, and tells waiters. Guarantees:
-- the fencing counter is left alone, so the next holder still gets a larger token than the evicted one.
-- KEYS[1] lock key; ARGV[1] release channel or '' when pub/sub is off
-- Returns 1 if a lock was removed, else 0.
local removed = redis.call('DEL', KEYS[1])
if removed == 1 and ARGV[1] ~= '' then
	redis.call('PUBLISH', ARGV[1], '1')
end
return removed
