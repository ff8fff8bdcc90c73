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
	 * The {@link System#nanoTime()} from which this JVM may count the lease: the store started it no earlier. The
	 * default is when the attempt that returned the lease was sent. A provider that hands a released lock straight to a
	 * queued waiter returns when that waiter's queued attempt was sent, which can be earlier.
	 * @param attemptNanos when the attempt that returned this lease was sent
	 */
	default long leaseStartNanos(long attemptNanos) {
		return attemptNanos;
	}

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
