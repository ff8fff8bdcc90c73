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
		String malformed = malformed(key);
		if (malformed != null) {
			throw new InvalidLockKeyException(key, "Lock key must " + malformed);
		}
		return key;
	}

	/**
	 * What is wrong with the characters of a key, lock ID or owner name, as the end of a sentence starting "must",
	 * or null when they are fine: no control characters, and well-formed UTF-16.
	 */
	static @Nullable String malformed(String text) {
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (Character.isISOControl(c)) {
				return "not contain control characters (found U+" + hex(c) + " at index " + i + ")";
			}
			// Stores encode text as UTF-8, where every lone surrogate becomes the same '?' or U+FFFD: two different
			// values would name one lock, or a stored value would no longer match the one sent to find it. A high
			// surrogate must be followed by a low one, and a low one preceded by a high one.
			boolean paired = Character.isHighSurrogate(c) && i + 1 < text.length()
					&& Character.isLowSurrogate(text.charAt(i + 1));
			if (paired) {
				i++;
			}
			else if (Character.isSurrogate(c)) {
				return "be well-formed UTF-16 (lone surrogate U+" + hex(c) + " at index " + i
						+ ", as when a substring cuts an emoji in two)";
			}
		}
		return null;
	}

	private static String hex(char c) {
		return String.format("%04X", (int) c);
	}

}
