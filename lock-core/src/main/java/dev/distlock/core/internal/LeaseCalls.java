package dev.distlock.core.internal;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.LockExtendException;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.spi.Interrupts;
import dev.distlock.core.spi.Lease;

/**
 * A {@link LeaseHandle}'s calls on its provider {@link Lease}, each named for {@link StoreCalls}: extend, the
 * watchdog's renewal, and release. A release reaches the store even when the caller was interrupted in the body, and
 * before the minimum hold has passed it shortens the lease to the rest of the hold instead of releasing.
 */
final class LeaseCalls {

	private final String key;

	private final Lease lease;

	private final @Nullable Duration holdAtLeast;

	private final StoreCalls store;

	LeaseCalls(String key, Lease lease, @Nullable Duration holdAtLeast, StoreCalls store) {
		this.key = key;
		this.lease = lease;
		this.holdAtLeast = holdAtLeast;
		this.store = store;
	}

	/**
	 * Extends the lease to {@code newLease} from now, at the caller's request.
	 * @return false when the store no longer holds the lock under this owner token
	 * @throws LockExtendException when the store could not be asked
	 */
	boolean extend(Duration newLease) {
		try {
			return store.call(key, "extend", () -> lease.extend(newLease));
		}
		catch (LockStoreException ex) {
			throw new LockExtendException(key, ex.getMessage(), ex);
		}
	}

	/**
	 * Extends the lease to {@code fullLease} from now, for the watchdog.
	 * @return false when the store no longer holds the lock under this owner token
	 * @throws LockStoreException when the store could not be asked
	 */
	boolean renew(Duration fullLease) {
		return store.call(key, "renew", () -> lease.extend(fullLease));
	}

	/**
	 * Asks the store whether the lock is still held under this owner token, for a lock without expiry.
	 * @return false when the store no longer holds the lock under this owner token
	 * @throws LockStoreException when the store could not be asked
	 * @throws UnsupportedOperationException when the provider cannot be asked
	 */
	boolean check() {
		return store.call(key, "check ownership of", lease::isHeld);
	}

	/**
	 * Releases the lock in the store, or shortens its lease to the rest of the minimum hold. It runs once more,
	 * uninterrupted, when another thread interrupts it midway.
	 * @param heldNanos how long the handle has held the lock
	 * @return false when the store no longer holds the lock under this owner token
	 * @throws LockStoreException when the store could not be asked
	 */
	boolean release(long heldNanos) {
		// Cleanup must reach the store even when the caller was interrupted in the body.
		return Interrupts.uninterruptibly(() -> store.call(key, "release", () -> {
			try {
				return releaseOnce(heldNanos);
			}
			catch (RuntimeException ex) {
				if (!Thread.interrupted()) {
					throw ex;
				}
				// Interrupted by another thread during the call: release is idempotent per token, so run it again
				// uninterrupted (the flag is set again afterwards).
				Thread.currentThread().interrupt();
				return Interrupts.uninterruptibly(() -> releaseOnce(heldNanos));
			}
		}));
	}

	private boolean releaseOnce(long heldNanos) {
		if (holdAtLeast != null && heldNanos < holdAtLeast.toNanos()) {
			// Keep the lock until the minimum hold has passed by shortening the lease, never by sleeping.
			return lease.extend(Duration.ofNanos(holdAtLeast.toNanos() - heldNanos));
		}
		return lease.release();
	}

}
