package dev.distlock.core;

import org.jspecify.annotations.Nullable;

/**
 * A lock key was null, blank, too long or held control characters. Nothing was locked and nothing ran.
 */
public class InvalidLockKeyException extends DistributedLockException {

	/**
	 * Creates the error; the message names the problem.
	 */
	public InvalidLockKeyException(@Nullable String key, String message) {
		super(key, message, null);
	}

}
