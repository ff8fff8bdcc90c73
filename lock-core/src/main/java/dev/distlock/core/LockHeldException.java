package dev.distlock.core;

import java.time.Duration;

/**
 * {@link LockTemplate#awaitFree} ran out of retries while the key was still held.
 */
public class LockHeldException extends LockAcquisitionException {

	/**
	 * Creates the error for a key that stayed held.
	 */
	public LockHeldException(String key, int attempts, Duration waited) {
		super(key, "Lock '" + key + "' was still held after " + attempts + " check(s) in " + waited.toMillis() + " ms",
				attempts, waited, null);
	}

}
