package dev.distlock.core;

import org.jspecify.annotations.Nullable;

/**
 * Validates lock keys before anything reaches a store.
 */
public final class LockKeys {

	/** The longest key accepted, in characters, prefix included. */
	public static final int MAX_LENGTH = 512;

	private LockKeys() {
	}

	/**
	 * Returns the key if it is usable, else throws {@link InvalidLockKeyException} naming the problem.
	 */
	public static String validate(@Nullable String key) {
		if (key == null) {
			throw new InvalidLockKeyException(null, "Lock key must not be null");
		}
		if (key.isBlank()) {
			throw new InvalidLockKeyException(key, "Lock key must not be blank");
		}
		if (key.length() > MAX_LENGTH) {
			throw new InvalidLockKeyException(key.substring(0, 64) + "...",
					"Lock key is " + key.length() + " characters long; the limit is " + MAX_LENGTH);
		}
		for (int i = 0; i < key.length(); i++) {
			if (Character.isISOControl(key.charAt(i))) {
				throw new InvalidLockKeyException(key,
						"Lock key must not contain control characters (found U+" + String.format("%04X", (int) key.charAt(i))
								+ " at index " + i + ")");
			}
		}
		return key;
	}

}
