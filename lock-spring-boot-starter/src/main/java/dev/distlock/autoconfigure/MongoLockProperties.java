package dev.distlock.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

import dev.distlock.mongo.MongoLockSettings;

/**
 * The {@code distributed-lock.mongo.*} properties, beside the auto-configuration that uses them. Each starts from
 * {@link MongoLockSettings#defaults()}, the only copy of the defaults; IDEs see them in
 * {@code META-INF/additional-spring-configuration-metadata.json}.
 */
@ConfigurationProperties("distributed-lock.mongo")
public class MongoLockProperties extends DatabaseLockProperties {

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

	/** The properties at the store's defaults. */
	public MongoLockProperties() {
		super(MongoLockSettings.defaults().purgeInterval(), MongoLockSettings.defaults().purgeGrace(),
				MongoLockSettings.defaults().callTimeout());
	}

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

}
