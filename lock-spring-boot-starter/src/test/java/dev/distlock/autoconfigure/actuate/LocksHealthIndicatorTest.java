package dev.distlock.autoconfigure.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockReleaseException;
import dev.distlock.core.LockOperations;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.memory.InMemoryLockProvider;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.OperatorSupport;
import dev.distlock.core.spi.StatusQuery;
import dev.distlock.mongo.MongoLockProvider;
import dev.distlock.mongo.MongoLockSettings;
import dev.distlock.mongo.testsupport.MongoTestServer;
import dev.distlock.redis.RedisLockProvider;
import dev.distlock.redis.RedisLockSettings;
import dev.distlock.redis.testsupport.RedisServerProcess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The health indicator on a private redis-server and an in-process MongoDB, both also stopped.
 */
class LocksHealthIndicatorTest {

	private static final Duration TIMEOUT = Duration.ofSeconds(3);

	/** Where the indicators ping, as distlock's threads do in an application. */
	private static final ExecutorService PINGS = Executors.newCachedThreadPool();

	private static RedisServerProcess redis;

	@BeforeAll
	static void startRedis() {
		redis = RedisServerProcess.startOnFreePort();
	}

	@AfterAll
	static void stopRedis() {
		redis.close();
		PINGS.shutdownNow();
	}

	@Test
	void upWithProviderAndLatencyWhenRedisAnswers() {
		LettuceConnectionFactory factory = redis.connectionFactory();
		try (RedisLockProvider provider = new RedisLockProvider(factory, RedisLockSettings.defaults())) {
			Health health = indicator(provider, TIMEOUT).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("provider", "redis")
				.hasEntrySatisfying("latency", latency -> assertThat(latency.toString()).matches("\\d+\\.\\d+ms"));
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void contentionNeverMakesItDown() throws Exception {
		LettuceConnectionFactory factory = redis.connectionFactory();
		ExecutorService pool = Executors.newFixedThreadPool(4);
		try (RedisLockProvider provider = new RedisLockProvider(factory, RedisLockSettings.defaults());
				LockTemplate template = new LockTemplate(provider)) {
			LocksHealthIndicator indicator = indicator(provider, TIMEOUT);
			LockOptions contended = LockOptions.builder().timeout(Duration.ofSeconds(10)).retries(2)
				.delay(Duration.ofMillis(10)).build();
			try (LockHandle hot = template.acquire("hot", contended)) {
				List<Future<Optional<LockHandle>>> attempts = new ArrayList<>();
				for (int i = 0; i < 8; i++) {
					attempts.add(pool.submit(() -> template.tryAcquire("hot", contended)));
				}
				assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
				for (Future<Optional<LockHandle>> attempt : attempts) {
					assertThat(attempt.get(30, TimeUnit.SECONDS)).isEmpty();
				}
				assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
			}
		}
		finally {
			pool.shutdownNow();
			factory.destroy();
		}
	}

	@Test
	void downWhileRedisIsStoppedWhileHeldLocksStillShowAndFailedReleasesCount() {
		LettuceConnectionFactory factory = redis.connectionFactory();
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		try (RedisLockProvider provider = new RedisLockProvider(factory, RedisLockSettings.defaults())) {
			LockTemplate[] holder = new LockTemplate[1];
			LockTemplate template = LockTemplate.builder(provider)
				.listener(new LockMetricsListener(registry, () -> holder[0], LockKeyTag.beforeFirstColon()))
				.listener(new LockObservationListener(observedBy(registry), () -> holder[0],
						LockKeyTag.beforeFirstColon(), null))
				.build();
			holder[0] = template;
			LocksHealthIndicator indicator = indicator(provider, TIMEOUT);
			LockHandle held = template.acquire("orders:1", LockOptions.builder().timeout(Duration.ofSeconds(30)).build());
			redis.stop();
			try {
				Health down = indicator.health();
				assertThat(down.getStatus()).isEqualTo(Status.DOWN);
				assertThat(down.getDetails()).containsEntry("provider", "redis")
					.hasEntrySatisfying("error", error -> assertThat(error.toString()).contains("LockStoreException"));

				LocksDescriptor locks = new LocksEndpoint(new LockOperations(template), 100).locks(null, null, null);
				assertThat(locks.held()).extracting(LocksDescriptor.HeldLock::key).containsExactly("orders:1");
				assertThat(locks.held().get(0).fencingToken()).isEqualTo(held.fencingToken());
				assertThat(locks.store().supported()).isTrue();
				assertThat(locks.store().error()).isNotNull();
				assertThat(locks.store().locks()).isEmpty();

				assertThatExceptionOfType(LockReleaseException.class).isThrownBy(held::release);
				assertThat(registry.get(LockMetricsListener.RELEASE_FAILURES).tag("provider", "redis")
					.tag(LockKeyTag.TAG, "orders").counter().count()).isEqualTo(1);
				assertThat(registry.get("distlock.lock.active").longTaskTimer().activeTasks()).isZero();
			}
			finally {
				redis.start();
				template.close();
			}
			awaitUp(indicator);
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void upOnMongoAndDownOnceItStops() {
		try (MongoTestServer mongo = MongoTestServer.startInProcess()) {
			MongoLockProvider provider = new MongoLockProvider(mongo.template(), MongoLockSettings.defaults());
			LocksHealthIndicator indicator = indicator(provider, TIMEOUT);
			Health up = indicator.health();
			assertThat(up.getStatus()).isEqualTo(Status.UP);
			assertThat(up.getDetails()).containsEntry("provider", "mongo").containsKey("latency");
			mongo.stop();
			assertThat(indicator.health().getStatus()).isEqualTo(Status.DOWN);
			mongo.restart();
			awaitUp(indicator);
		}
	}

	@Test
	void downWhenThePingDoesNotAnswerInTime() {
		Health health = indicator(new SilentStore(), Duration.ofMillis(200)).health();
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails()).hasEntrySatisfying("error",
				error -> assertThat(error.toString()).contains("did not answer a ping within PT0.2S"));
	}

	@Test
	void upOnTheInMemoryStoreAndUnknownForAStoreWithoutPing() {
		assertThat(indicator(new InMemoryLockProvider(), TIMEOUT).health().getStatus())
			.isEqualTo(Status.UP);
		LockProvider noPing = new LockProvider() {
			@Override
			public Optional<Lease> tryAcquire(LockRequest request) {
				return Optional.empty();
			}

			@Override
			public boolean isLocked(String key) {
				return false;
			}
		};
		assertThat(indicator(noPing, TIMEOUT).health().getStatus()).isEqualTo(Status.UNKNOWN);
	}

	private static LocksHealthIndicator indicator(LockProvider provider, Duration timeout) {
		return new LocksHealthIndicator(new LockOperations(new LockTemplate(provider)), timeout, PINGS);
	}

	private static void awaitUp(LocksHealthIndicator indicator) {
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		Status status = indicator.health().getStatus();
		while (!Status.UP.equals(status) && System.nanoTime() < deadline) {
			sleep(200);
			status = indicator.health().getStatus();
		}
		assertThat(status).isEqualTo(Status.UP);
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * A store whose ping never answers, as a partitioned one would not.
	 */
	private static final class SilentStore implements LockProvider, OperatorSupport {

		@Override
		public Optional<Lease> tryAcquire(LockRequest request) {
			return Optional.empty();
		}

		@Override
		public boolean isLocked(String key) {
			return false;
		}

		@Override
		public List<LockInfo> status(StatusQuery query) {
			return List.of();
		}

		@Override
		public boolean forceRelease(String key) {
			return false;
		}

		@Override
		public Duration ping() {
			sleep(10_000);
			return Duration.ZERO;
		}

	}

	// Observations whose meters land in the registry, as Boot's metrics wire them.
	private static ObservationRegistry observedBy(MeterRegistry meters) {
		ObservationRegistry observations = ObservationRegistry.create();
		observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
		return observations;
	}

}
