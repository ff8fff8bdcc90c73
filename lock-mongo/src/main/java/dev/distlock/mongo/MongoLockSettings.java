package dev.distlock.mongo;

import java.time.Duration;

import com.mongodb.WriteConcern;

/**
 * Settings of the MongoDB provider.
 * @param collection the collection holding one document per lock key
 * @param writeConcern the write concern of every lock write; majority by default
 * @param createIndexes whether to create the indexes the status query and purger use at startup
 * @param purgeInterval how often the purger runs, or null for never
 * @param purgeGrace how long a lock must have been expired before the purger removes its document
 */
public record MongoLockSettings(String collection, WriteConcern writeConcern, boolean createIndexes,
		Duration purgeInterval, Duration purgeGrace) {

	/**
	 * Collection {@code distributed_locks}, majority writes, indexes on, purge every 5 minutes after 1 hour.
	 */
	public static MongoLockSettings defaults() {
		return new MongoLockSettings("distributed_locks", WriteConcern.MAJORITY, true, Duration.ofMinutes(5),
				Duration.ofHours(1));
	}

}
