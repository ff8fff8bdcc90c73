package dev.distlock.core;

import org.jspecify.annotations.Nullable;

/**
 * The base of every error distlock throws. Carries the lock key where one is known.
 */
public class DistributedLockException extends RuntimeException {

	private final @Nullable String key;

	/**
	 * Creates an error about a key.
	 */
	public DistributedLockException(@Nullable String key, String message, @Nullable Throwable cause) {
		super(message, cause);
		this.key = key;
	}

	/**
	 * The lock key this error is about, or null when it is about configuration as a whole.
	 */
	public @Nullable String key() {
		return key;
	}

}
