package dev.distlock.core.spi;

import java.time.Duration;

/**
 * What only the store knows about a granted lock: its fencing token, and how to extend or release it. Both compare
 * the owner token in the store, so a holder whose lease expired cannot touch the next holder's lock. The caller
 * already knows the key and owner token: it sent them in the {@link LockRequest}.
 */
public interface Lease {

	/**
	 * The fencing token: strictly increasing per key across all holders, also after expiry; 0 when the store was
	 * configured without fencing tokens (Redis {@code fencing=false}, for a plain exclusive lock).
	 */
	long fencingToken();

	/**
	 * Sets the remaining lease to {@code lease} from now, if this token still holds the lock. Running it twice (a
	 * client replaying the command after a reconnect) has the effect of running it once.
	 * @return false when the lock is no longer held under this token
	 */
	boolean extend(Duration lease);

	/**
	 * Whether this token still holds the lock in the store, asking it and changing nothing (a lock without expiry
	 * stays without). The template calls it periodically for locks without expiry, whose handles have no lease that
	 * would tell them the lock was taken away (released by lock ID or by force, then taken by someone else).
	 * @return false when the lock is no longer held under this token
	 * @throws UnsupportedOperationException by default: the store cannot be asked, so such handles learn of a loss
	 * only at release
	 */
	default boolean isHeld() {
		throw new UnsupportedOperationException(getClass().getName() + " cannot check whether it is still held");
	}

	/**
	 * Releases the lock, if this token still holds it. Running it twice has the effect of running it once, and both
	 * runs answer true.
	 * @return false when the lock was not held under this token (expired, forced out, or taken over)
	 */
	boolean release();

}
