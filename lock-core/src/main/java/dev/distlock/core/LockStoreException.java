package dev.distlock.core;

import org.jspecify.annotations.Nullable;

/**
 * The lock store could not be asked: it is down, unreachable or answered with an error. Distinct from "held by
 * someone else", which is not an error.
 */
public class LockStoreException extends DistributedLockException {

	/**
	 * Creates the error; the cause is the client's own exception.
	 */
	public LockStoreException(@Nullable String key, String message, @Nullable Throwable cause) {
		super(key, message, cause);
	}

}
