package dev.distlock.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import dev.distlock.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.autoconfigure.JdbcLockAutoConfiguration;
import dev.distlock.autoconfigure.MongoLockAutoConfiguration;
import dev.distlock.autoconfigure.RedisLockAutoConfiguration;
import dev.distlock.core.InvalidLockKeyException;
import dev.distlock.core.InvalidLockOptionException;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.LockTemplate;
import dev.distlock.jdbc.testsupport.PostgresTestServer;
import dev.distlock.redis.testsupport.RedisServerProcess;
import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.LockAnnotationException;
import dev.distlock.spring.LockKeyEvaluationException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

/**
 * The bad-input catalogue: one test per bad input, through the starter's own auto-configuration, each asserting the
 * typed error and that it names what it rejects.
 */
class BadInputCatalogueTest {

	private static final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RedisLockAutoConfiguration.class, MongoLockAutoConfiguration.class,
				DistributedLockAutoConfiguration.class))
		.withPropertyValues("distributed-lock.provider=in-memory");

	// Keys: through LockTemplate and through a SpEL key that evaluates to the bad value.

	static Stream<Arguments> badKeys() {
		return Stream.of(argumentSet("null key", null, "must not be null"),
				argumentSet("blank key", " \t ", "must not be blank"),
				argumentSet("oversized key (513 chars)", "k".repeat(513), "the limit is 512"),
				argumentSet("key with a newline", "order\n42", "control characters"),
				argumentSet("key with NUL", "order\u000042", "control characters"),
				argumentSet("key with a lone high surrogate (a cut emoji)", "s:\uD83D", "lone surrogate"),
				argumentSet("key with a lone low surrogate", "s:\uDE00x", "lone surrogate"));
	}

	@ParameterizedTest
	@MethodSource("badKeys")
	void templateRejectsBadKey(@Nullable String key, String reason) {
		runner.run(context -> assertThatThrownBy(() -> context.getBean(LockTemplate.class).acquire(key))
			.isInstanceOf(InvalidLockKeyException.class)
			.hasMessageContaining(reason));
	}

	@ParameterizedTest
	@MethodSource("badKeys")
	void annotationRejectsBadKeyWithoutRunningTheMethod(@Nullable String key, String reason) {
		runner.withUserConfiguration(KeyedConfig.class).run(context -> {
			KeyedService service = context.getBean(KeyedService.class);
			assertThatThrownBy(() -> service.run(key)).isInstanceOf(InvalidLockKeyException.class)
				.hasMessageContaining(reason)
				.hasMessageContaining("#key");
			assertThat(service.calls()).isZero();
		});
	}

	// SpEL: names that are not parameters, and reaches for types, constructors and beans.

	@Test
	void spelNamingAMissingParameterFailsStartupNamingMethodAndParameter() {
		startupFails(MissingParameterConfig.class, LockAnnotationException.class, "MissingParameterService.run",
				"#missing");
	}

	@Test
	void spelTypeReferenceToRuntimeIsBlockedAtStartup() {
		startupFails(TypeReferenceConfig.class, LockAnnotationException.class, "TypeReferenceService.run",
				"may not reference types or constructors");
	}

	@Test
	void spelConstructorIsBlockedAtStartup() {
		startupFails(ConstructorConfig.class, LockAnnotationException.class, "ConstructorService.run",
				"may not reference types or constructors");
	}

	@Test
	void spelBeanReferenceIsBlockedAtStartupUnlessEnabled() {
		startupFails(BeanReferenceConfig.class, LockAnnotationException.class, "BeanReferenceService.run",
				"references a bean");
	}

	@Test
	void spelTypeReferenceStaysBlockedWhenBeanReferencesAreEnabled() {
		runner.withPropertyValues("distributed-lock.spel.bean-references=true")
			.withUserConfiguration(TypeReferenceConfig.class)
			.run(context -> {
				assertThat(context).hasFailed();
				assertThat(find(context.getStartupFailure(), LockAnnotationException.class))
					.hasMessageContaining("may not reference types or constructors");
			});
	}

	@Test
	void spelReflectionThroughGetClassFailsTypedAtCallWithoutRunningTheMethod() {
		runner.withUserConfiguration(ReflectionConfig.class).run(context -> {
			ReflectionService service = context.getBean(ReflectionService.class);
			assertThatThrownBy(() -> service.run("x")).isInstanceOf(LockKeyEvaluationException.class)
				.hasMessageContaining("ReflectionService.run");
			assertThat(service.calls()).isZero();
		});
	}

	// Options through properties: the error names the property.

	static Stream<Arguments> badProperties() {
		return Stream.of(argumentSet("timeout=-1s", "distributed-lock.timeout=-1s", "distributed-lock.timeout"),
				argumentSet("timeout=0s", "distributed-lock.timeout=0s", "distributed-lock.timeout"),
				argumentSet("delay=-5ms", "distributed-lock.delay=-5ms", "distributed-lock.delay"),
				argumentSet("delay=0ms", "distributed-lock.delay=0ms", "distributed-lock.delay"),
				argumentSet("max-wait=0s", "distributed-lock.max-wait=0s", "distributed-lock.max-wait"),
				argumentSet("max-wait=-1s", "distributed-lock.max-wait=-1s", "distributed-lock.max-wait"),
				argumentSet("retries=-1", "distributed-lock.retries=-1", "distributed-lock.retries"),
				argumentSet("backoff-multiplier=0.5", "distributed-lock.backoff-multiplier=0.5",
						"distributed-lock.backoff-multiplier"),
				argumentSet("timeout=500us", "distributed-lock.timeout=500us", "distributed-lock.timeout"),
				argumentSet("delay=500us", "distributed-lock.delay=500us", "distributed-lock.delay"),
				argumentSet("timeout=366d", "distributed-lock.timeout=366d", "distributed-lock.timeout"),
				argumentSet("max-wait=9999999d", "distributed-lock.max-wait=9999999d", "distributed-lock.max-wait"),
				argumentSet("backoff-multiplier=1e308", "distributed-lock.backoff-multiplier=1e308",
						"distributed-lock.backoff-multiplier"),
				argumentSet("key-prefix=app}:", "distributed-lock.key-prefix=app}:", "distributed-lock.key-prefix"),
				argumentSet("key-prefix of 512 characters", "distributed-lock.key-prefix=" + "p".repeat(512),
						"distributed-lock.key-prefix"));
	}

	@ParameterizedTest
	@MethodSource("badProperties")
	void badOptionPropertyFailsStartupNamingIt(String property, String name) {
		runner.withPropertyValues(property).run(context -> {
			assertThat(context).hasFailed();
			InvalidLockOptionException error = find(context.getStartupFailure(), InvalidLockOptionException.class);
			assertThat(error.option()).isEqualTo(name);
		});
	}

	// Options through annotation attributes: startup fails naming the method, caused by the option error.

	@ParameterizedTest
	@MethodSource("badAttributes")
	void badAnnotationAttributeFailsStartupNamingMethodAndOption(Class<?> config, String option) {
		runner.withUserConfiguration(config).run(context -> {
			assertThat(context).hasFailed();
			LockAnnotationException error = find(context.getStartupFailure(), LockAnnotationException.class);
			assertThat(error.method()).contains(".run(");
			assertThat(find(error, InvalidLockOptionException.class).option()).isEqualTo(option);
		});
	}

	static Stream<Arguments> badAttributes() {
		return Stream.of(argumentSet("timeout = 0", ZeroTimeoutConfig.class, "timeout"),
				argumentSet("timeoutString = \"-1s\"", NegativeTimeoutConfig.class, "timeout"),
				argumentSet("delayString = \"0ms\"", ZeroDelayConfig.class, "delay"),
				argumentSet("delayString = \"-5ms\"", NegativeDelayConfig.class, "delay"),
				argumentSet("maxWaitString = \"-1s\"", NegativeMaxWaitConfig.class, "maxWait"),
				argumentSet("retriesString = \"-1\"", NegativeRetriesConfig.class, "retries"),
				argumentSet("backoffMultiplier = 0.5", LowMultiplierConfig.class, "backoffMultiplier"),
				argumentSet("shared, maxConcurrent = 0", ZeroMaxConcurrentConfig.class, "maxConcurrent"),
				argumentSet("shared, maxConcurrent = -1", LowMaxConcurrentConfig.class, "maxConcurrent"));
	}

	// maxConcurrent = 0, the boundary, fails on the annotation (above) and through LockOptions (below); leaving the
	// attribute out admits any number of readers.

	@Test
	void sharedWithoutMaxConcurrentOnTheAnnotationAdmitsAnyNumberOfReaders() {
		runner.withUserConfiguration(UnlimitedSharedConfig.class).run(context -> {
			assertThat(context).hasNotFailed();
			UnlimitedSharedService service = context.getBean(UnlimitedSharedService.class);
			int readers = 3;
			CountDownLatch allInside = new CountDownLatch(readers);
			List<Thread> threads = new ArrayList<>();
			AtomicInteger met = new AtomicInteger();
			for (int i = 0; i < readers; i++) {
				Thread thread = new Thread(() -> {
					if (service.run(allInside)) {
						met.incrementAndGet();
					}
				});
				thread.start();
				threads.add(thread);
			}
			for (Thread thread : threads) {
				thread.join();
			}
			// Every reader was inside the method while the others were: none waited for another to leave.
			assertThat(met.get()).isEqualTo(readers);
		});
	}

	@Test
	void sharedMaxConcurrentZeroThroughLockOptionsFailsNamingMaxConcurrent() {
		runner.run(context -> {
			LockTemplate template = context.getBean(LockTemplate.class);
			assertThatThrownBy(() -> template.acquire("k", template.defaults().toBuilder().shared(0).build()))
				.isInstanceOfSatisfying(InvalidLockOptionException.class,
						error -> assertThat(error.option()).isEqualTo("maxConcurrent"))
				.hasMessageContaining("was 0");
		});
	}

	// Providers.

	@Test
	void unknownProviderNameFailsStartupNamingThePropertyAndValue() {
		runner.withPropertyValues("distributed-lock.provider=zookeeper").run(context -> {
			assertThat(context).hasFailed();
			BindException error = find(context.getStartupFailure(), BindException.class);
			assertThat(error.getProperty().getName().toString()).isEqualTo("distributed-lock.provider");
			assertThat(error.getProperty().getValue()).isEqualTo("zookeeper");
		});
	}

	@Test
	void redisProviderWithoutRedisOnTheClasspathFailsStartupNamingTheProperty() {
		runner.withPropertyValues("distributed-lock.provider=redis")
			.withClassLoader(new FilteredClassLoader(RedisConnectionFactory.class))
			.run(context -> {
				assertThat(context).hasFailed();
				InvalidLockOptionException error = find(context.getStartupFailure(), InvalidLockOptionException.class);
				assertThat(error.option()).isEqualTo("distributed-lock.provider");
				assertThat(error).hasMessageContaining("lock-redis").hasMessageContaining("RedisConnectionFactory");
			});
	}

	@Test
	void redisProviderWithoutAConnectionFactoryBeanFailsStartupNamingTheProperty() {
		runner.withPropertyValues("distributed-lock.provider=redis").run(context -> {
			assertThat(context).hasFailed();
			assertThat(find(context.getStartupFailure(), InvalidLockOptionException.class).option())
				.isEqualTo("distributed-lock.provider");
		});
	}

	/**
	 * The documented behaviour with Redis down at startup: the application starts (connections are lazy), and each
	 * lock call fails with {@link LockStoreException} within the client timeout until Redis is reachable.
	 */
	@Test
	void redisDownAtStartupStartsAndFailsEachLockCallTypedWithinTheTimeout() {
		int closedPort = RedisServerProcess.freePort(false);
		runner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
			.withPropertyValues("distributed-lock.provider=redis", "spring.data.redis.host=127.0.0.1",
					"spring.data.redis.port=" + closedPort, "spring.data.redis.timeout=1s",
					"spring.data.redis.connect-timeout=1s")
			.run(context -> {
				assertThat(context).hasNotFailed();
				LockTemplate template = context.getBean(LockTemplate.class);
				long start = System.nanoTime();
				Throwable error = catchThrowable(() -> template.acquire("down-at-startup"));
				Duration took = Duration.ofNanos(System.nanoTime() - start);
				Reports.figure("redis.downAtStartup.firstCall", took.toMillis() + " ms, " + error.getClass().getSimpleName());
				assertThat(error).isInstanceOf(LockStoreException.class).hasMessageContaining("down-at-startup");
				// The 1 s connect and 1 s command timeouts, with slack for a busy 2-core machine; Lettuce's own 60 s
				// default, the alternative to a configured bound, exceeds it by far.
				assertThat(took).isLessThan(Duration.ofSeconds(2).plusSeconds(4));
			});
	}

	/**
	 * The documented behaviour with MongoDB down at startup: the provider creates its index on start, so startup
	 * fails with {@link LockStoreException} after the driver's server selection gives up, instead of starting an
	 * application whose every lock call would fail.
	 */
	@Test
	void mongoDownAtStartupFailsStartupTypedWithinTheTimeout() {
		int closedPort = RedisServerProcess.freePort(false);
		long start = System.nanoTime();
		runner.withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class, DataMongoAutoConfiguration.class))
			.withPropertyValues("distributed-lock.provider=mongo",
					"spring.mongodb.uri=mongodb://127.0.0.1:" + closedPort + "/locks?serverSelectionTimeoutMS=1000&connectTimeoutMS=1000")
			.run(context -> {
				Duration took = Duration.ofNanos(System.nanoTime() - start);
				Reports.figure("mongo.downAtStartup", took.toMillis() + " ms, "
						+ (context.getStartupFailure() != null ? "startup failed" : "started"));
				assertThat(context).hasFailed();
				assertThat(find(context.getStartupFailure(), LockStoreException.class)).hasMessageContaining("mongo");
				// Measured about 13 s here with serverSelectionTimeoutMS=1000 in the URI: bounded, well under the
				// driver's 30 s default, but more than one selection timeout (see docs/RELIABILITY.md).
				assertThat(took).isLessThan(Duration.ofSeconds(25));
			});
	}

	@Test
	void jdbcProviderWithoutADataSourceBeanFailsStartupNamingTheProperty() {
		runner.withConfiguration(AutoConfigurations.of(JdbcLockAutoConfiguration.class))
			.withPropertyValues("distributed-lock.provider=jdbc")
			.run(context -> {
				assertThat(context).hasFailed();
				InvalidLockOptionException error = find(context.getStartupFailure(), InvalidLockOptionException.class);
				assertThat(error.option()).isEqualTo("distributed-lock.provider");
				assertThat(error).hasMessageContaining("DataSource");
			});
	}

	@Test
	void jdbcProviderWithAMissingTableAndInitializeSchemaNeverFailsStartupNamingTableAndProperty() {
		PostgresTestServer server = PostgresTestServer.shared();
		String table = "missing_locks_" + Long.toString(System.nanoTime(), 36);
		runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, JdbcLockAutoConfiguration.class))
			.withPropertyValues("distributed-lock.provider=jdbc", "distributed-lock.jdbc.table=" + table,
					"distributed-lock.jdbc.initialize-schema=never", "spring.datasource.url=" + server.jdbcUrl(),
					"spring.datasource.username=" + server.user())
			.run(context -> {
				assertThat(context).hasFailed();
				InvalidLockOptionException error = find(context.getStartupFailure(), InvalidLockOptionException.class);
				assertThat(error.option()).isEqualTo("distributed-lock.jdbc.initialize-schema");
				assertThat(error).hasMessageContaining("'" + table + "' does not exist");
			});
	}

	/**
	 * The documented behaviour with the database down at startup: the provider checks its table on start, so startup
	 * fails with {@link LockStoreException} once the pool's connection timeout has passed, instead of starting an
	 * application whose every lock call would fail.
	 */
	@Test
	void jdbcDatabaseDownAtStartupFailsStartupTypedWithinThePoolTimeout() {
		int closedPort = RedisServerProcess.freePort(false);
		long start = System.nanoTime();
		runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, JdbcLockAutoConfiguration.class))
			.withPropertyValues("distributed-lock.provider=jdbc", "distributed-lock.jdbc.initialize-schema=never",
					"spring.datasource.url=jdbc:postgresql://127.0.0.1:" + closedPort + "/postgres",
					"spring.datasource.username=distlock", "spring.datasource.hikari.connection-timeout=1000")
			.run(context -> {
				Duration took = Duration.ofNanos(System.nanoTime() - start);
				Reports.figure("postgresql.downAtStartup", took.toMillis() + " ms, "
						+ (context.getStartupFailure() != null ? "startup failed" : "started"));
				assertThat(context).hasFailed();
				assertThat(find(context.getStartupFailure(), LockStoreException.class)).isNotNull();
				// The 1 s connection timeout plus a context's start on a busy 2-core machine (3.4 s seen at load 9), well
				// short of Hikari's own 30 s default, which a startup that ignored the pool's timeout would wait out.
				assertThat(took).isLessThan(Duration.ofSeconds(20));
			});
	}

	private static void startupFails(Class<?> config, Class<? extends Throwable> type, String... messageParts) {
		runner.withUserConfiguration(config).run(context -> {
			assertThat(context).hasFailed();
			Throwable error = find(context.getStartupFailure(), type);
			for (String part : messageParts) {
				assertThat(error).hasMessageContaining(part);
			}
		});
	}

	// The first error of the type in the cause chain; startup wraps ours in bean creation errors.
	private static <T extends Throwable> T find(@Nullable Throwable failure, Class<T> type) {
		for (Throwable current = failure; current != null; current = current.getCause()) {
			if (type.isInstance(current)) {
				return type.cast(current);
			}
		}
		throw new AssertionError("No " + type.getSimpleName() + " in the cause chain of " + failure, failure);
	}

	// One annotated service per bad declaration: each must fail on its own.

	static class KeyedService {

		private final AtomicInteger calls = new AtomicInteger();

		// Through a method: the service is a proxy, whose own fields are not the target's.
		public int calls() {
			return calls.get();
		}

		@DistributedLock(key = "#key")
		public void run(@Nullable String key) {
			calls.incrementAndGet();
		}

	}

	static class MissingParameterService {

		@DistributedLock(key = "#missing")
		public void run(String key) {
		}

	}

	static class TypeReferenceService {

		@DistributedLock(key = "T(java.lang.Runtime).getRuntime().exec('true')")
		public void run(String key) {
		}

	}

	static class ConstructorService {

		@DistributedLock(key = "new java.lang.ProcessBuilder('true').start()")
		public void run(String key) {
		}

	}

	static class BeanReferenceService {

		@DistributedLock(key = "@lockOperations.releaseAll()")
		public void run(String key) {
		}

	}

	static class ReflectionService {

		private final AtomicInteger calls = new AtomicInteger();

		// Through a method: the service is a proxy, whose own fields are not the target's.
		public int calls() {
			return calls.get();
		}

		@DistributedLock(key = "#key.getClass().forName('java.lang.Runtime').getMethod('getRuntime').invoke(null)")
		public void run(String key) {
			calls.incrementAndGet();
		}

	}

	static class ZeroTimeoutService {

		@DistributedLock(key = "'k'", timeout = 0)
		public void run() {
		}

	}

	static class NegativeTimeoutService {

		@DistributedLock(key = "'k'", timeoutString = "-1s")
		public void run() {
		}

	}

	static class ZeroDelayService {

		@DistributedLock(key = "'k'", delayString = "0ms")
		public void run() {
		}

	}

	static class NegativeRetriesService {

		@DistributedLock(key = "'k'", retriesString = "-1")
		public void run() {
		}

	}

	static class LowMultiplierService {

		@DistributedLock(key = "'k'", backoffMultiplier = 0.5)
		public void run() {
		}

	}

	static class NegativeDelayService {

		@DistributedLock(key = "'k'", delayString = "-5ms")
		public void run() {
		}

	}

	static class NegativeMaxWaitService {

		@DistributedLock(key = "'k'", maxWaitString = "-1s")
		public void run() {
		}

	}

	static class ZeroMaxConcurrentService {

		@DistributedLock(key = "'k'", shared = true, maxConcurrent = 0)
		public void run() {
		}

	}

	static class UnlimitedSharedService {

		// Returns whether every reader got inside while this one was; a limit of 1 would keep them out until timeout.
		@DistributedLock(key = "'k'", shared = true)
		public boolean run(CountDownLatch allInside) {
			allInside.countDown();
			try {
				return allInside.await(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		}

	}

	static class LowMaxConcurrentService {

		@DistributedLock(key = "'k'", shared = true, maxConcurrent = -2)
		public void run() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class KeyedConfig {

		@Bean
		KeyedService service() {
			return new KeyedService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class MissingParameterConfig {

		@Bean
		MissingParameterService service() {
			return new MissingParameterService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TypeReferenceConfig {

		@Bean
		TypeReferenceService service() {
			return new TypeReferenceService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ConstructorConfig {

		@Bean
		ConstructorService service() {
			return new ConstructorService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BeanReferenceConfig {

		@Bean
		BeanReferenceService service() {
			return new BeanReferenceService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ReflectionConfig {

		@Bean
		ReflectionService service() {
			return new ReflectionService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ZeroTimeoutConfig {

		@Bean
		ZeroTimeoutService service() {
			return new ZeroTimeoutService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NegativeTimeoutConfig {

		@Bean
		NegativeTimeoutService service() {
			return new NegativeTimeoutService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ZeroDelayConfig {

		@Bean
		ZeroDelayService service() {
			return new ZeroDelayService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NegativeRetriesConfig {

		@Bean
		NegativeRetriesService service() {
			return new NegativeRetriesService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class LowMultiplierConfig {

		@Bean
		LowMultiplierService service() {
			return new LowMultiplierService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NegativeDelayConfig {

		@Bean
		NegativeDelayService service() {
			return new NegativeDelayService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NegativeMaxWaitConfig {

		@Bean
		NegativeMaxWaitService service() {
			return new NegativeMaxWaitService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ZeroMaxConcurrentConfig {

		@Bean
		ZeroMaxConcurrentService service() {
			return new ZeroMaxConcurrentService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UnlimitedSharedConfig {

		@Bean
		UnlimitedSharedService service() {
			return new UnlimitedSharedService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class LowMaxConcurrentConfig {

		@Bean
		LowMaxConcurrentService service() {
			return new LowMaxConcurrentService();
		}

	}

}
