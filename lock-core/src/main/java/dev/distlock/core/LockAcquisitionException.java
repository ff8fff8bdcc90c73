package dev.distlock.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * The lock could not be acquired: it stayed held through every attempt, or waiting was interrupted.
 */
public class LockAcquisitionException extends DistributedLockException {

	private final int attempts;

	private final Duration waited;

	/**
	 * Creates the error for a key after the given attempts and wait.
	 */
	public LockAcquisitionException(String key, int attempts, Duration waited, @Nullable Throwable cause) {
		this(key, "Could not acquire lock '" + key + "' after " + attempts + " attempt(s) in " + waited.toMillis()
				+ " ms", attempts, waited, cause);
	}

	/**
	 * Creates the error with its own message.
	 */
	public LockAcquisitionException(String key, String message, int attempts, Duration waited,
			@Nullable Throwable cause) {
		super(key, message, cause);
		this.attempts = attempts;
		this.waited = waited;
	}

	/**
	 * How many attempts were made: the first and the retries, not the attempts that only kept a waiter's place
	 * within a delay.
	 */
	public int attempts() {
		return attempts;
	}

	/**
	 * How long the caller waited in all.
	 */
	public Duration waited() {
		return waited;
	}

}
