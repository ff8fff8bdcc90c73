package dev.distlock.core;

import org.jspecify.annotations.Nullable;

/**
 * A held lock was found lost: renewal failed, or the lease ran out. Passed to {@link LockListener#onLost} and thrown
 * by {@link LockHandle#assertHeld()}.
 */
public class LockLostException extends DistributedLockException {

	/**
	 * Creates the error for a key.
	 */
	public LockLostException(String key, String message, @Nullable Throwable cause) {
		super(key, message, cause);
	}

}
