package dev.distlock.core;

import org.jspecify.annotations.Nullable;

/**
 * Validates lock keys before anything reaches a store: not null, not blank, at most {@link #MAX_LENGTH} UTF-16 units, no
 * control characters and well-formed UTF-16 (no lone surrogates).
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
			char c = key.charAt(i);
			if (Character.isISOControl(c)) {
				throw new InvalidLockKeyException(key,
						"Lock key must not contain control characters (found U+" + hex(c) + " at index " + i + ")");
			}
			// Stores encode keys as UTF-8, where every lone surrogate becomes the same '?' or U+FFFD: two different keys
			// would name one lock. A high surrogate must be followed by a low one, and a low one preceded by a high one.
			boolean paired = Character.isHighSurrogate(c) && i + 1 < key.length()
					&& Character.isLowSurrogate(key.charAt(i + 1));
			if (paired) {
				i++;
			}
			else if (Character.isSurrogate(c)) {
				throw new InvalidLockKeyException(key, "Lock key must be well-formed UTF-16 (lone surrogate U+" + hex(c)
						+ " at index " + i + ", as when a substring cuts an emoji in two)");
			}
		}
		return key;
	}

	private static String hex(char c) {
		return String.format("%04X", (int) c);
	}

}
