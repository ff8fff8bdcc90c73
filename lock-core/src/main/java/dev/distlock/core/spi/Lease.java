package dev.distlock.core.spi;

import java.time.Duration;

/**
 * A lock a provider granted. It releases and extends itself, always comparing its owner token, so a holder whose
 * lease expired cannot touch the next holder's lock.
 */
public interface Lease {

	/**
	 * The store key.
	 */
	String key();

	/**
	 * The owner token this lease was granted under.
	 */
	String token();

	/**
	 * The fencing token: strictly increasing per key across all holders, also after expiry.
	 */
	long fencingToken();

	/**
	 * Sets the remaining lease to {@code lease} from now, if this token still holds the lock.
	 * @return false when the lock is no longer held under this token
	 */
	boolean extend(Duration lease);

	/**
	 * Releases the lock, if this token still holds it.
	 * @return false when the lock was not held under this token (expired, or taken over)
	 */
	boolean release();

}
