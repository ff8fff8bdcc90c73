package dev.distlock.core;

import org.jspecify.annotations.Nullable;

/**
 * Validates lock IDs and owner names before anything reaches a store, as {@link LockKeys} does keys: not null, not
 * blank, at most {@link #MAX_LENGTH} UTF-16 units, no control characters and well-formed UTF-16. A stored ID that
 * no longer equals the one sent to find it would leave its locks unreachable by ID.
 */
public final class LockIds {

	/** The longest lock ID or owner name accepted, in characters. */
	public static final int MAX_LENGTH = 200;

	private LockIds() {
	}

	/**
	 * Returns the lock ID if it is usable, else throws {@link InvalidLockOptionException} naming {@code lockId}.
	 */
	public static String validate(@Nullable String lockId) {
		return validate("lockId", lockId);
	}

	/**
	 * Returns the value if it is a usable lock ID or owner name, else throws {@link InvalidLockOptionException}
	 * naming {@code option} and the problem.
	 */
	public static String validate(String option, @Nullable String value) {
		if (value == null) {
			throw new InvalidLockOptionException(option, "must not be null");
		}
		if (value.isBlank()) {
			throw new InvalidLockOptionException(option, "must not be blank");
		}
		if (value.length() > MAX_LENGTH) {
			throw new InvalidLockOptionException(option,
					"must be at most " + MAX_LENGTH + " characters, was " + value.length());
		}
		String malformed = LockKeys.malformed(value);
		if (malformed != null) {
			throw new InvalidLockOptionException(option, "must " + malformed);
		}
		return value;
	}

}
