package dev.distlock.core.spi;

import java.time.Duration;
import java.util.List;

/**
 * Optional provider capability: what operators ask of the store through {@link dev.distlock.core.LockOperations}, the
 * locks it holds, a forced release and a cheap round trip for health checks.
 */
public interface OperatorSupport {

	/**
	 * The locks matching the query, sorted by key; a store that honours {@link StatusQuery#limit()} returns at most
	 * that many and stops looking there.
	 */
	List<LockInfo> status(StatusQuery query);

	/**
	 * Deletes a lock whoever holds it, for operators clearing a lock whose holder is gone. Dangerous: a live holder
	 * keeps running without its lock, so only fencing tokens protect the resource.
	 * @return whether a lock was removed
	 */
	boolean forceRelease(String key);

	/**
	 * Sends one cheap request (PING for Redis, the ping command for Mongo) and returns how long it took.
	 * @throws dev.distlock.core.LockStoreException if the store cannot be reached
	 */
	Duration ping();

}
