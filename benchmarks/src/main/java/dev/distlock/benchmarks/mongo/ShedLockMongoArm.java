package dev.distlock.benchmarks.mongo;

import com.mongodb.WriteConcern;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import net.javacrumbs.shedlock.provider.mongo.MongoLockProvider;

import dev.distlock.benchmarks.harness.LockArm;
import dev.distlock.benchmarks.harness.LockClient;
import dev.distlock.benchmarks.harness.ShedLockClient;

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
		MongoClient client = MongoClients.create(uri);
		MongoLockProvider provider = new MongoLockProvider(
				client.getDatabase("bench").getCollection("shedLock").withWriteConcern(WriteConcern.MAJORITY));
		return new ShedLockClient(provider, MongoPause::retryDelay, client::close);
	}

}
