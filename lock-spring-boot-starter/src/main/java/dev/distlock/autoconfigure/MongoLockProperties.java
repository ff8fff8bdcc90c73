package dev.distlock.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code distributed-lock.mongo.*} properties, beside the auto-configuration that uses them.
 */
@ConfigurationProperties("distributed-lock.mongo")
public class MongoLockProperties {

	/**
	 * Collection holding one document per lock key.
	 */
	private String collection = "distributed_locks";

	/**
	 * Write concern of every lock write, such as majority, w1 or journaled.
	 */
	private String writeConcern = "majority";

	/**
	 * Whether to create the indexes the status query and the purger use at startup.
	 */
	private boolean createIndexes = true;

	/**
	 * How often expired lock documents are purged; never when unset.
	 */
	private @Nullable Duration purgeInterval = Duration.ofMinutes(5);

	/**
	 * How long a lock must have been expired before its document is purged.
	 */
	private Duration purgeGrace = Duration.ofHours(1);

	/**
	 * The longest any lock call may take, however long its lease; each call also ends with the lease it serves.
	 */
	private Duration callTimeout = Duration.ofSeconds(30);

	public String getCollection() {
		return collection;
	}

	public void setCollection(String collection) {
		this.collection = collection;
	}

	public String getWriteConcern() {
		return writeConcern;
	}

	public void setWriteConcern(String writeConcern) {
		this.writeConcern = writeConcern;
	}

	public boolean isCreateIndexes() {
		return createIndexes;
	}

	public void setCreateIndexes(boolean createIndexes) {
		this.createIndexes = createIndexes;
	}

	public @Nullable Duration getPurgeInterval() {
		return purgeInterval;
	}

	public void setPurgeInterval(@Nullable Duration purgeInterval) {
		this.purgeInterval = purgeInterval;
	}

	public Duration getPurgeGrace() {
		return purgeGrace;
	}

	public void setPurgeGrace(Duration purgeGrace) {
		this.purgeGrace = purgeGrace;
	}

	public Duration getCallTimeout() {
		return callTimeout;
	}

	public void setCallTimeout(Duration callTimeout) {
		this.callTimeout = callTimeout;
	}

}
