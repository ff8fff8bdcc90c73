package dev.distlock.core;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * Lifecycle events of locks taken through a {@link LockTemplate}: for metrics, logs and the lock-lost signal. Methods
 * run on the calling or watchdog thread and must be quick; an exception from a listener is logged and ignored.
 */
public interface LockListener {

	/**
	 * A lock was acquired after {@link LockHandle#waited()}.
	 */
	default void onAcquired(LockHandle handle) {
	}

	/**
	 * A lock (or a group) could not be acquired after all attempts.
	 * @param skipped whether the caller skipped its work rather than failing
	 */
	default void onAcquireFailed(LockAttempt attempt, int attempts, Duration waited, boolean skipped) {
	}

	/**
	 * An acquire stopped because the store could not be asked; the caller gets the same error.
	 */
	default void onAcquireError(LockAttempt attempt, LockStoreException error) {
	}

	/**
	 * A lock was released after being held for {@code heldFor}.
	 */
	default void onReleased(LockHandle handle, Duration heldFor) {
	}

	/**
	 * A release failed; the handle is invalid either way.
	 */
	default void onReleaseFailed(LockHandle handle, DistributedLockException error) {
	}

	/**
	 * The watchdog extended a lease.
	 */
	default void onRenewed(LockHandle handle) {
	}

	/**
	 * A held lock was found lost: a renewal or release found another owner or no lock. Work done under it since the
	 * last successful renewal may overlap another holder's, so fencing-token checks matter here.
	 */
	default void onLost(LockHandle handle, LockLostException cause) {
	}

	/**
	 * A listener that only hears lost locks.
	 */
	static LockListener onLost(Consumer<LockHandle> callback) {
		return new LockListener() {
			@Override
			public void onLost(LockHandle handle, LockLostException cause) {
				callback.accept(handle);
			}
		};
	}

}
