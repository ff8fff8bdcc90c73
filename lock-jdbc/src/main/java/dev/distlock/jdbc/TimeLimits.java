package dev.distlock.jdbc;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.InvalidLockOptionException;

/**
 * How long each store call may take, and the lease bounds checked before anything is sent. A lock call is bounded by
 * its lease, between {@link #FLOOR} (never below a healthy round trip on a loaded machine) and the settings' call
 * timeout; the bound is each statement's, enforced on the server (see {@link LockDatabase}).
 */
final class TimeLimits {

	/** The longest lease or extension accepted. */
	static final Duration MAX_LEASE = Duration.ofDays(365);

	/** The stored lease of a lock without expiry: its row is read as such from {@code ttl_ms IS NULL}. */
	static final long NO_EXPIRY_MS = Duration.ofDays(200 * 365L).toMillis();

	/** The least a lock call is given, whatever is left of its lease. */
	static final Duration FLOOR = Duration.ofSeconds(2);

	/** Calls with no lease to derive a bound from: status, forced release, by-ID calls, ping, the waiter's mark. */
	static final Duration ADMIN = Duration.ofSeconds(10);

	/** Each statement of the purge and the schema check. */
	static final Duration MAINTENANCE = Duration.ofMinutes(1);

	private TimeLimits() {
	}

	/** The bound of a lock call with {@code leftNanos} of its lease left: that, between the floor and the timeout. */
	static long leaseBoundMillis(long leftNanos, Duration callTimeout) {
		long millis = TimeUnit.NANOSECONDS.toMillis(leftNanos);
		return Math.max(FLOOR.toMillis(), Math.min(callTimeout.toMillis(), millis));
	}

	/**
	 * A lease or extension in whole milliseconds, rounded up; checked before anything is sent.
	 * @param option the option the error names: {@code timeout} for an acquire, {@code lease} or {@code ttl} otherwise
	 */
	static long leaseMs(String option, Duration lease) {
		if (lease == null || lease.isNegative() || lease.isZero()) {
			throw new InvalidLockOptionException(option, "must be positive, was " + lease);
		}
		if (lease.compareTo(MAX_LEASE) > 0) {
			throw new InvalidLockOptionException(option,
					"must be at most 365 days (" + MAX_LEASE + ") for the JDBC lock store, was " + lease);
		}
		long millis = lease.toMillis();
		return lease.equals(Duration.ofMillis(millis)) ? millis : millis + 1;
	}

}
