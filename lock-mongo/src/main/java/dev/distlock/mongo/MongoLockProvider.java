package dev.distlock.mongo;

import java.util.Optional;

import org.springframework.data.mongodb.core.MongoTemplate;

import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;

/**
 * Locks in MongoDB. (Skeleton: the Mongo issue fills it in.)
 */
public final class MongoLockProvider implements LockProvider, AutoCloseable {

	private final MongoTemplate mongoTemplate;

	private final MongoLockSettings settings;

	/**
	 * A provider on the template.
	 */
	public MongoLockProvider(MongoTemplate mongoTemplate, MongoLockSettings settings) {
		this.mongoTemplate = mongoTemplate;
		this.settings = settings;
	}

	@Override
	public Optional<Lease> tryAcquire(LockRequest request) {
		throw new UnsupportedOperationException("not yet");
	}

	@Override
	public boolean isLocked(String key) {
		throw new UnsupportedOperationException("not yet");
	}

	@Override
	public String name() {
		return "mongo";
	}

	/**
	 * Creates the indexes the status query and the purger use.
	 */
	public void createIndexes() {
	}

	/**
	 * Removes documents expired for longer than the grace period.
	 * @return how many were removed
	 */
	public long purge() {
		return 0;
	}

	@Override
	public void close() {
	}

}
