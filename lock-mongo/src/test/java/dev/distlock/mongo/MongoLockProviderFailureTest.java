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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.mongodb.MongoException;

import dev.distlock.core.LockExtendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockMode;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockReleaseException;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.mongo.testsupport.MongoTestServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Failures: a stopped server, stale holders and racing acquirers. Each test gets its own in-process server, because
 * some stop it.
 */
class MongoLockProviderFailureTest {

	/** Far above the client's 1.5 s server selection and 2 s read timeouts: a hang, not a slow machine. */
	private static final Duration FAIL_FAST_BOUND = Duration.ofSeconds(15);

	private static final OwnerDetails OWNER = new OwnerDetails("failure-test", "test-host");

	private MongoTestServer server;

	private MongoLockProvider provider;

	private LockTemplate template;

	@BeforeEach
	void start() {
		server = MongoTestServer.startInProcess();
		provider = new MongoLockProvider(server.template(), MongoLockSettings.defaults());
		provider.start();
		template = LockTemplate.builder(provider).owner(OWNER).build();
	}

	@AfterEach
	void stop() {
		template.close();
		provider.close();
		server.close();
	}

	@Test
	void acquireWithTheServerStoppedFailsFastWithAStoreErrorNamingTheKey() {
		server.stop();
		long start = System.nanoTime();
		assertThatThrownBy(() -> template.tryAcquire("down", LockOptions.builder().timeout(Duration.ofSeconds(5)).build()))
			.isInstanceOf(LockStoreException.class)
			.hasMessageContaining("'down'")
			.hasRootCauseInstanceOf(MongoException.class);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(FAIL_FAST_BOUND);
		assertThatThrownBy(() -> provider.isLocked("down")).isInstanceOf(LockStoreException.class);
		assertThatThrownBy(provider::ping).isInstanceOf(LockStoreException.class);
	}

	@Test
	void releaseWithTheServerStoppedFailsFastWithAReleaseErrorAndTheLockSurvivesARestart() {
		LockHandle handle = template.acquire("held", LockOptions.builder().timeout(Duration.ofSeconds(30)).build());
		server.stop();
		long start = System.nanoTime();
		assertThatThrownBy(handle::release).isInstanceOf(LockReleaseException.class)
			.hasMessageContaining("'held'")
			.cause()
			.isInstanceOf(LockStoreException.class)
			.hasCauseInstanceOf(MongoException.class);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(FAIL_FAST_BOUND);

		server.restart();
		assertThat(provider.isLocked("held")).isTrue();
		assertThat(template.tryAcquire("held", LockOptions.builder().timeout(Duration.ofSeconds(30)).build()))
			.isEmpty();
	}

	@Test
	void extendWithTheServerStoppedIsAnExtendErrorCausedByTheStore() {
		LockHandle handle = template.acquire("ext", LockOptions.builder().timeout(Duration.ofSeconds(30)).build());
		server.stop();
		assertThatThrownBy(() -> handle.extend(Duration.ofSeconds(30))).isInstanceOf(LockExtendException.class)
			.hasCauseInstanceOf(LockStoreException.class);
	}

	@Test
	void aStaleHolderGetsTypedErrorsAndLeavesTheStoreUntouched() throws Exception {
		LockHandle stale = template.acquire("stale", LockOptions.builder().timeout(Duration.ofMillis(150)).build());
		Thread.sleep(400);
		assertThatThrownBy(() -> stale.extend(Duration.ofSeconds(30))).isInstanceOf(LockExtendException.class)
			.hasMessageContaining("'stale'");
		assertThatThrownBy(stale::release).isInstanceOf(LockReleaseException.class).hasMessageContaining("'stale'");
		Document document = server.template().getCollection("distributed_locks").find(new Document("_id", "stale"))
			.first();
		assertThat(document).isNotNull();
		assertThat(document.getLong("seq")).isEqualTo(1L);
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
				List<Future<Optional<Lease>>> attempts = new ArrayList<>();
				for (int t = 0; t < threads; t++) {
					attempts.add(executor.submit(() -> {
						barrier.await(10, TimeUnit.SECONDS);
						return provider.tryAcquire(new LockRequest(key, UUID.randomUUID().toString(),
								Duration.ofSeconds(30), LockMode.EXCLUSIVE, 1, OWNER));
					}));
				}
				List<Lease> winners = new ArrayList<>();
				for (Future<Optional<Lease>> attempt : attempts) {
					attempt.get(30, TimeUnit.SECONDS).ifPresent(winners::add); // get() rethrows anything that escaped
				}
				assertThat(winners).as("holders of %s", key).hasSize(1);
				Document document = server.template().getCollection("distributed_locks")
					.find(new Document("_id", key)).first();
				assertThat(document.getLong("seq")).isEqualTo(1L);
				assertThat(document.getString("token")).isEqualTo(winners.get(0).token());
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

}
