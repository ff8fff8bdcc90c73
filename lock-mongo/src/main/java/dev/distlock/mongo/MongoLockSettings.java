package dev.distlock.mongo;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import com.mongodb.ReadConcern;
import com.mongodb.WriteConcern;

import dev.distlock.core.InvalidLockOptionException;
import dev.distlock.core.LockOptions;

/**
 * Settings of the MongoDB provider, validated on construction so bad configuration fails at startup.
 * @param collection the collection holding one document per lock key
 * @param writeConcern the write concern of every lock write; majority by default
 * @param createIndexes whether {@link MongoLockProvider#start()} creates the index the purger uses
 * @param purgeInterval how often the purger runs, or null for never
 * @param purgeGrace how long a lock must have been expired before the purger removes its document; at least
 * {@link #MIN_PURGE_GRACE}
 * @param callTimeout the longest any lock call may take, however long its lease (each call also ends with the lease
 * it serves); 1 s to 10 min, 30 s by default
 */
public record MongoLockSettings(String collection, WriteConcern writeConcern, boolean createIndexes,
		@Nullable Duration purgeInterval, Duration purgeGrace, Duration callTimeout) {

	/** The default call timeout. */
	public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(30);

	/** The default collection name. */
	public static final String DEFAULT_COLLECTION = "distributed_locks";

	/** The shortest purge grace accepted (see docs/MONGO.md, Fencing tokens). */
	public static final Duration MIN_PURGE_GRACE = Duration.ofMinutes(1);

	/**
	 * Validates every setting; the error names the setting at fault by its field name (the starter maps it to its
	 * {@code distributed-lock.mongo.*} property).
	 */
	public MongoLockSettings {
		if (collection == null || collection.isBlank()) {
			throw new InvalidLockOptionException("collection", "must not be blank");
		}
		if (collection.contains("$") || collection.indexOf('\0') >= 0 || collection.startsWith("system.")) {
			throw new InvalidLockOptionException("collection",
					"'" + collection + "' is not a valid collection name (no '$', no NUL, no 'system.' prefix)");
		}
		if (writeConcern == null) {
			throw new InvalidLockOptionException("writeConcern", "must not be null");
		}
		if (!writeConcern.isAcknowledged()) {
			throw new InvalidLockOptionException("writeConcern",
					"must be acknowledged: an unacknowledged write cannot tell a granted lock from a refused one");
		}
		if (purgeInterval != null && (purgeInterval.isNegative() || purgeInterval.isZero())) {
			throw new InvalidLockOptionException("purgeInterval",
					"must be positive (or unset for no purger), was " + purgeInterval);
		}
		if (purgeInterval != null) {
			// The purger is scheduled in whole milliseconds: 500us would become a zero period.
			LockOptions.checkDuration("purgeInterval", purgeInterval);
		}
		if (purgeGrace == null || purgeGrace.compareTo(MIN_PURGE_GRACE) < 0) {
			throw new InvalidLockOptionException("purgeGrace", "must be at least 1 minute ("
					+ MIN_PURGE_GRACE + "): fencing tokens of a lock document re-created after a purge stay above the "
					+ "old ones only while the database clock does not step back by more than the grace; was "
					+ purgeGrace);
		}
		if (purgeGrace.compareTo(LockOptions.MAX_DURATION) > 0) {
			throw new InvalidLockOptionException("purgeGrace",
					"must be at most 365 days (" + LockOptions.MAX_DURATION + "), was " + purgeGrace);
		}
		if (callTimeout == null || callTimeout.compareTo(Duration.ofSeconds(1)) < 0
				|| callTimeout.compareTo(Duration.ofMinutes(10)) > 0) {
			throw new InvalidLockOptionException("callTimeout",
					"must be between 1 s and 10 min, was " + callTimeout);
		}
	}

	/**
	 * Collection {@code distributed_locks}, majority writes, indexes on, purge every 5 minutes after 1 hour, call timeout
	 * 30 s. The starter's {@code distributed-lock.mongo.*} properties start from these.
	 */
	public static MongoLockSettings defaults() {
		return new MongoLockSettings(DEFAULT_COLLECTION, WriteConcern.MAJORITY, true, Duration.ofMinutes(5),
				Duration.ofHours(1));
	}

	/**
	 * A copy using another collection.
	 */
	public MongoLockSettings withCollection(String name) {
		return new MongoLockSettings(name, writeConcern, createIndexes, purgeInterval, purgeGrace, callTimeout);
	}

	/**
	 * Settings with the default call timeout.
	 */
	public MongoLockSettings(String collection, WriteConcern writeConcern, boolean createIndexes,
			@Nullable Duration purgeInterval, Duration purgeGrace) {
		this(collection, writeConcern, createIndexes, purgeInterval, purgeGrace, DEFAULT_CALL_TIMEOUT);
	}

	/**
	 * A copy with another call timeout.
	 */
	public MongoLockSettings withCallTimeout(Duration timeout) {
		return new MongoLockSettings(collection, writeConcern, createIndexes, purgeInterval, purgeGrace, timeout);
	}

	/**
	 * A copy with another purge schedule.
	 */
	public MongoLockSettings withPurge(@Nullable Duration interval, Duration grace) {
		return new MongoLockSettings(collection, writeConcern, createIndexes, interval, grace, callTimeout);
	}

	/**
	 * The read concern matching the write concern: majority reads after majority writes, so status and
	 * {@code isLocked} never report a grant that a failover could roll back; the server default otherwise.
	 */
	public ReadConcern readConcern() {
		return "majority".equals(writeConcern.getWObject()) ? ReadConcern.MAJORITY : ReadConcern.DEFAULT;
	}

}
