package dev.distlock.core.spi;

import java.util.List;

/**
 * Optional provider capability: lists locks in the store.
 */
public interface LockStatusSource {

	/**
	 * The locks matching the query, sorted by key; a store that honours {@link StatusQuery#limit()} returns at most
	 * that many and stops looking there.
	 */
	List<LockInfo> status(StatusQuery query);

	/**
	 * Deletes a lock whoever holds it, for operators clearing a lock whose holder is gone. Dangerous: a live holder
	 * keeps running without its lock, so only fencing tokens protect the resource.
	 * @return whether a lock was removed
	 * @throws UnsupportedOperationException if the store offers no forced release
	 */
	default boolean forceRelease(String key) {
		throw new UnsupportedOperationException("This lock store has no forced release");
	}

}
