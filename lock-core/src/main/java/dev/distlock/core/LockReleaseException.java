package dev.distlock.core;

import org.jspecify.annotations.Nullable;

/**
 * A release did not release: the handle was already released, or the store no longer held the lock under this
 * owner token (it expired, and perhaps another holder took it).
 */
public class LockReleaseException extends DistributedLockException {

	/**
	 * Creates the error for a key.
	 */
	public LockReleaseException(String key, String message, @Nullable Throwable cause) {
		super(key, message, cause);
	}

}
