package dev.distlock.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

import dev.distlock.mongo.MongoLockSettings;

/**
 * The {@code distributed-lock.mongo.*} properties, beside the auto-configuration that uses them. Each starts from
 * {@link MongoLockSettings#defaults()}, the only copy of the defaults; IDEs see them in
 * {@code META-INF/additional-spring-configuration-metadata.json}.
 */
@ConfigurationProperties("distributed-lock.mongo")
public class MongoLockProperties {

	/**
	 * Collection holding one document per lock key.
	 */
	private String collection = MongoLockSettings.defaults().collection();

	// The default's w value, "majority", is also the name WriteConcern.valueOf reads back.
	/**
	 * Write concern of every lock write, such as majority, w1 or journaled.
	 */
	private String writeConcern = String.valueOf(MongoLockSettings.defaults().writeConcern().getWObject());

	/**
	 * Whether to create the indexes the status query and the purger use at startup.
	 */
	private boolean createIndexes = MongoLockSettings.defaults().createIndexes();

	/**
	 * How often expired lock documents are purged; never when unset.
	 */
	private @Nullable Duration purgeInterval = MongoLockSettings.defaults().purgeInterval();

	/**
	 * How long a lock must have been expired before its document is purged.
	 */
	private Duration purgeGrace = MongoLockSettings.defaults().purgeGrace();

	/**
	 * The longest any lock call may take, however long its lease; each call also ends with the lease it serves.
	 */
	private Duration callTimeout = MongoLockSettings.defaults().callTimeout();

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
