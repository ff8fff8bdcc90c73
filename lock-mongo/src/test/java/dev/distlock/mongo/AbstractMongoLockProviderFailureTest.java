package dev.distlock.mongo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;

import com.mongodb.client.MongoClient;

import dev.distlock.core.LockExtendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockMode;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockReleaseException;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Failures any server can show: stale holders, racing acquirers and a closed client. Subclasses supply the server:
 * mongo-java-server in-process, or a real one named by {@code MONGODB_URI}. Each test gets its own server instance
 * (on a real server: its own database, dropped afterwards).
 */
abstract class AbstractMongoLockProviderFailureTest extends AbstractMongoServerTest {

	protected static final OwnerDetails OWNER = new OwnerDetails("failure-test", "test-host");

	@Override
	protected OwnerDetails owner() {
		return OWNER;
	}

	protected static LockRequest request(String key, Duration lease, LockMode mode) {
		return new LockRequest(key, UUID.randomUUID().toString(), lease, mode, mode == LockMode.SHARED ? 3 : 1,
				OWNER);
	}

	protected Document document(String key) {
		return server.template().getCollection(MongoLockSettings.DEFAULT_COLLECTION).find(new Document("_id", key))
			.first();
	}

	@Test
	void aStaleHolderGetsTypedErrorsAndLeavesTheStoreUntouched() throws Exception {
		// A long lease cut to 1 ms: a grant reply slower than a short lease (a loaded machine) cannot fail the acquire.
		LockHandle stale = template.acquire("stale", LockOptions.builder().timeout(Duration.ofSeconds(30)).build());
		stale.extend(Duration.ofMillis(1));
		Thread.sleep(400);
		assertThatThrownBy(() -> stale.extend(Duration.ofSeconds(30))).isInstanceOf(LockExtendException.class)
			.hasMessageContaining("'stale'");
		assertThatThrownBy(stale::release).isInstanceOf(LockReleaseException.class).hasMessageContaining("'stale'");
		Document document = document("stale");
		assertThat(document).isNotNull();
		assertThat(document.getLong("seq")).isEqualTo(1L);
		assertThat(document.getString("token")).isEqualTo(stale.token());
		assertThat(provider.isLocked("stale")).isFalse();
	}

	@Test
	void eightThreadsRacingOnAnAbsentKeyYieldExactlyOneHolderAndNoException() throws Exception {
		int threads = 8;
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			for (int round = 0; round < 5; round++) {
				String key = "race-" + round;
				CyclicBarrier barrier = new CyclicBarrier(threads);
				List<Future<Optional<String>>> attempts = new ArrayList<>();
				for (int t = 0; t < threads; t++) {
					attempts.add(executor.submit(() -> {
						barrier.await(10, TimeUnit.SECONDS);
						LockRequest request = request(key, Duration.ofSeconds(30), LockMode.EXCLUSIVE);
						return provider.tryAcquire(request).map(lease -> request.token());
					}));
				}
				List<String> winners = new ArrayList<>();
				for (Future<Optional<String>> attempt : attempts) {
					attempt.get(30, TimeUnit.SECONDS).ifPresent(winners::add); // get() rethrows anything that escaped
				}
				assertThat(winners).as("holders of %s", key).hasSize(1);
				Document document = document(key);
				assertThat(document.getLong("seq")).isEqualTo(1L);
				assertThat(document.getString("token")).isEqualTo(winners.get(0));
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void aClosedClientIsAStoreErrorNamingTheKeyAndTheOperation() {
		MongoClient client = server.newClient();
		MongoLockProvider closing = new MongoLockProvider(new MongoTemplate(client, server.database()),
				MongoLockSettings.defaults());
		Lease lease = closing.tryAcquire(request("closed", Duration.ofSeconds(30), LockMode.EXCLUSIVE)).orElseThrow();
		client.close();

		assertThatThrownBy(() -> closing.tryAcquire(request("closed", Duration.ofSeconds(30), LockMode.EXCLUSIVE)))
			.isInstanceOf(LockStoreException.class)
			.hasMessageStartingWith("Mongo lock store failed to acquire for 'closed': IllegalStateException")
			.cause()
			.isInstanceOf(IllegalStateException.class);
		assertThatThrownBy(lease::release).isInstanceOf(LockStoreException.class)
			.hasMessageStartingWith("Mongo lock store failed to release for 'closed'")
			.hasCauseInstanceOf(IllegalStateException.class);
		assertThat(provider.isLocked("closed")).isTrue();
	}

}
