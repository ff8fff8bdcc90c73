package dev.distlock.benchmarks.mongo;

import java.util.Date;
import java.util.concurrent.ThreadLocalRandom;

import com.mongodb.ErrorCategory;
import com.mongodb.MongoServerException;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.Updates;
import org.bson.Document;

import dev.distlock.benchmarks.harness.LockArm;
import dev.distlock.benchmarks.harness.LockClient;

/**
 * The Mongo floor: the raw driver's {@code findOneAndUpdate} (upsert where the lock is absent or expired; a duplicate
 * key means held) to acquire and a token-compared {@code updateOne} to release, with majority writes as distlock's
 * default. Waiting retries every millisecond, like the other Mongo arms.
 */
public final class RawMongoArm implements LockArm {

	private static final long LEASE_MILLIS = 10_000;

	private final String uri;

	/**
	 * An arm on the server at the URI.
	 */
	public RawMongoArm(String uri) {
		this.uri = uri;
	}

	@Override
	public String name() {
		return "floor: driver findOneAndUpdate + updateOne";
	}

	@Override
	public boolean renewing() {
		return false;
	}

	@Override
	public LockClient newClient() {
		return new Client(MongoClients.create(uri));
	}

	private record Held(String key, String token) {
	}

	private static final class Client implements LockClient {

		private final MongoClient client;

		private final MongoCollection<Document> locks;

		Client(MongoClient client) {
			this.client = client;
			this.locks = client.getDatabase("bench").getCollection("raw_locks").withWriteConcern(WriteConcern.MAJORITY);
		}

		@Override
		public Object lock(String key) {
			ThreadLocalRandom random = ThreadLocalRandom.current();
			String token = Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong());
			while (!tryLock(key, token)) {
				MongoPause.retryDelay();
			}
			return new Held(key, token);
		}

		private boolean tryLock(String key, String token) {
			long now = System.currentTimeMillis();
			try {
				locks.findOneAndUpdate(Filters.and(Filters.eq("_id", key), Filters.lte("lockUntil", new Date(now))),
						Updates.combine(Updates.set("lockUntil", new Date(now + LEASE_MILLIS)),
								Updates.set("token", token)),
						new FindOneAndUpdateOptions().upsert(true));
				return true;
			}
			catch (MongoServerException ex) {
				if (ErrorCategory.fromErrorCode(ex.getCode()) == ErrorCategory.DUPLICATE_KEY) {
					return false;
				}
				throw ex;
			}
		}

		@Override
		public void unlock(Object held) {
			Held lock = (Held) held;
			locks.updateOne(Filters.and(Filters.eq("_id", lock.key()), Filters.eq("token", lock.token())),
					Updates.set("lockUntil", new Date()));
		}

		@Override
		public void close() {
			client.close();
		}

	}

}
