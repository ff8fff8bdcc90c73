package dev.distlock.benchmarks.mongo;

import java.time.Duration;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import org.springframework.data.mongodb.core.MongoTemplate;

import dev.distlock.benchmarks.harness.LockArm;
import dev.distlock.benchmarks.harness.LockClient;
import dev.distlock.benchmarks.harness.TemplateClient;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.mongo.MongoLockProvider;
import dev.distlock.mongo.MongoLockSettings;

/**
 * distlock: {@link LockTemplate} on {@link MongoLockProvider} with the default settings (majority writes), a 10 s
 * lease, and the same 1 ms retry delay as the other Mongo arms.
 */
public final class DistlockMongoArm implements LockArm {

	private static final LockOptions OPTIONS = LockOptions.builder()
		.timeout(Duration.ofSeconds(10))
		.waitUpTo(Duration.ofSeconds(60))
		.delay(MongoPause.RETRY_DELAY)
		.build();

	private final String uri;

	/**
	 * An arm on the server at the URI.
	 */
	public DistlockMongoArm(String uri) {
		this.uri = uri;
	}

	@Override
	public String name() {
		return "distlock";
	}

	@Override
	public boolean renewing() {
		return false;
	}

	@Override
	public LockClient newClient() {
		MongoClient client = MongoClients.create(uri);
		MongoLockProvider provider = new MongoLockProvider(new MongoTemplate(client, "bench"),
				MongoLockSettings.defaults());
		return new TemplateClient(provider, OPTIONS, () -> {
			provider.close();
			client.close();
		});
	}

}
