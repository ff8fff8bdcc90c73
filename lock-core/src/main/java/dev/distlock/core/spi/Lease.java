package dev.distlock.core.spi;

import java.time.Duration;

/**
 * What only the store knows about a granted lock: its fencing token, and how to extend or release it. Both compare
 * the owner token in the store, so a holder whose lease expired cannot touch the next holder's lock. The caller
 * already knows the key and owner token: it sent them in the {@link LockRequest}.
 */
public interface Lease {

	/**
	 * The fencing token: strictly increasing per key across all holders, also after expiry.
	 */
	long fencingToken();

	/**
	 * Sets the remaining lease to {@code lease} from now, if this token still holds the lock. Running it twice (a
	 * client replaying the command after a reconnect) has the effect of running it once.
	 * @return false when the lock is no longer held under this token
	 */
	boolean extend(Duration lease);

	/**
	 * Releases the lock, if this token still holds it. Running it twice has the effect of running it once, and both
	 * runs answer true.
	 * @return false when the lock was not held under this token (expired, forced out, or taken over)
	 */
	boolean release();

}
