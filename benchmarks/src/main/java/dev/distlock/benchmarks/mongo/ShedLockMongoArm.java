package dev.distlock.benchmarks.mongo;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import com.mongodb.WriteConcern;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.mongo.MongoLockProvider;

import dev.distlock.benchmarks.harness.LockArm;
import dev.distlock.benchmarks.harness.LockClient;

/**
 * ShedLock's Mongo provider: {@code lockAtMostFor} 10 s, {@code lockAtLeastFor} zero, majority writes. ShedLock never
 * waits, so a held lock is retried every millisecond.
 */
public final class ShedLockMongoArm implements LockArm {

	private final String uri;

	/**
	 * An arm on the server at the URI.
	 */
	public ShedLockMongoArm(String uri) {
		this.uri = uri;
	}

	@Override
	public String name() {
		return "ShedLock MongoLockProvider";
	}

	@Override
	public boolean renewing() {
		return false;
	}

	@Override
	public LockClient newClient() {
		return new Client(MongoClients.create(uri));
	}

	private static final class Client implements LockClient {

		private final MongoClient client;

		private final MongoLockProvider provider;

		Client(MongoClient client) {
			this.client = client;
			this.provider = new MongoLockProvider(
					client.getDatabase("bench").getCollection("shedLock").withWriteConcern(WriteConcern.MAJORITY));
		}

		@Override
		public Object lock(String key) {
			while (true) {
				Optional<SimpleLock> lock = provider
					.lock(new LockConfiguration(Instant.now(), key, Duration.ofSeconds(10), Duration.ZERO));
				if (lock.isPresent()) {
					return lock.get();
				}
				MongoPause.retryDelay();
			}
		}

		@Override
		public void unlock(Object held) {
			((SimpleLock) held).unlock();
		}

		@Override
		public void close() {
			client.close();
		}

	}

}
