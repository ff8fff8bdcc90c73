package dev.distlock.mongo;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.bson.Document;

import com.mongodb.client.MongoCollection;

import dev.distlock.core.InvalidLockOptionException;

/**
 * How long each store call may take, and the lease bounds checked before anything is sent. Every call runs with the
 * driver's client-side operation timeout ({@code timeoutMS}, {@link MongoCollection#withTimeout}), which bounds
 * server selection, connection checkout, the socket reads and, through {@code maxTimeMS}, the server's own work,
 * majority write-concern waits included: with a secondary down or the server paused, a call ends with a timeout
 * instead of waiting forever. The bounds per operation are in docs/MONGO.md.
 */
final class TimeLimits {

	/** The longest lease or extension the provider accepts; beyond it expiry arithmetic could overflow. */
	static final Duration MAX_LEASE = Duration.ofDays(365);

	/**
	 * The least a lock call is given, whatever is left of its lease: a shorter bound would fail calls on a loaded
	 * machine that would have succeeded. A call that ends after its lease changes nothing, as every statement checks
	 * the lease on the database clock when it runs.
	 */
	static final Duration FLOOR = Duration.ofSeconds(1);

	/**
	 * Calls with no lease to derive a bound from: isLocked, status, forced release, unlock and renew by lock ID, ping,
	 * a waiting writer's mark and its withdrawal, and the topology check at start.
	 */
	static final Duration ADMIN = Duration.ofSeconds(10);

	/** Each statement of createIndexes and purge. */
	static final Duration MAINTENANCE = Duration.ofMinutes(1);

	private TimeLimits() {
	}

	/**
	 * The bound of a lock call with {@code leftNanos} of its lease left (or its whole lease): that, between
	 * {@link #FLOOR} and the settings' call timeout, in whole milliseconds.
	 */
	static long leaseBoundMillis(long leftNanos, Duration callTimeout) {
		long millis = TimeUnit.NANOSECONDS.toMillis(leftNanos);
		return Math.max(FLOOR.toMillis(), Math.min(callTimeout.toMillis(), millis));
	}

	/**
	 * The collection with every call on it bounded to {@code millis} (at least 1: the driver reads 0 as "none").
	 */
	static MongoCollection<Document> bounded(MongoCollection<Document> collection, long millis) {
		return collection.withTimeout(Math.max(1, millis), TimeUnit.MILLISECONDS);
	}

	/**
	 * A lease or extension in whole milliseconds, rounded up; checked before anything is sent so that no duration
	 * can overflow into a lease that looks expired (and so is granted to someone else) or an arithmetic error.
	 * @param option the option the error names: {@code timeout} for an acquire, {@code lease} for an extension
	 * @throws InvalidLockOptionException if the duration is null, not positive, or longer than {@link #MAX_LEASE}
	 */
	static long leaseMs(String option, Duration lease) {
		if (lease == null || lease.isNegative() || lease.isZero()) {
			throw new InvalidLockOptionException(option, "must be positive, was " + lease);
		}
		if (lease.compareTo(MAX_LEASE) > 0) {
			throw new InvalidLockOptionException(option,
					"must be at most 365 days (" + MAX_LEASE + ") for the Mongo lock store, was " + lease);
		}
		long millis = lease.toMillis();
		return lease.equals(Duration.ofMillis(millis)) ? millis : millis + 1;
	}

}
