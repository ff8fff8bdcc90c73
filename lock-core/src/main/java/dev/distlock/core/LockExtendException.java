package dev.distlock.core;

import org.jspecify.annotations.Nullable;

/**
 * An extend did not extend: the handle was released or lost, or the store no longer held the lock under this owner
 * token.
 */
public class LockExtendException extends DistributedLockException {

	/**
	 * Creates the error for a key.
	 */
	public LockExtendException(String key, String message, @Nullable Throwable cause) {
		super(key, message, cause);
	}

}
