package dev.distlock.spring;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.types.RedisClientInfo;

import dev.distlock.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.autoconfigure.RedisLockAutoConfiguration;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.redis.RedisLockProvider;
import dev.distlock.redis.testsupport.RedisServerProcess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The shutdown seam (issue 11, item 11): an application on Spring Boot's own Redis auto-configuration closes its
 * context while it holds locks. The locks must be gone from Redis within a bounded time, because held locks are
 * released before the store's connections stop; a 30 s lease keeps a stranded lock visible.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ShutdownSeamsTest {

	/** How soon after {@code close()} returned the key must be gone. */
	private static final Duration GONE_WITHIN = Duration.ofSeconds(2);

	private static RedisServerProcess redis;

	private static LettuceConnectionFactory direct;

	private static StringRedisTemplate store;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisLockAutoConfiguration.class,
				DistributedLockAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
				"spring.data.redis.timeout=1s", "distributed-lock.timeout=30s")
		.withBean(BlockedJob.class);

	@BeforeAll
	static void startRedis() {
		redis = RedisServerProcess.startOnFreePort();
		direct = redis.connectionFactory();
		store = new StringRedisTemplate(direct);
	}

	@AfterAll
	static void stopRedis() {
		direct.destroy();
		redis.close();
	}

	@Test
	void closingTheContextReleasesALockHeldThroughTheTemplate() {
		runner.run(context -> {
			assertThat(context.getBean(LockProvider.class)).isInstanceOf(RedisLockProvider.class);
			LockTemplate template = context.getBean(LockTemplate.class);
			template.acquire("shutdown:template", LockOptions.builder().timeout(Duration.ofSeconds(30)).build());
			assertThat(store.hasKey("distlock:{shutdown:template}")).isTrue();

			context.close();

			assertGone("distlock:{shutdown:template}");
		});
	}

	@Test
	void closingTheContextReleasesTheLockOfAnAnnotatedMethodStillRunning() throws Exception {
		AtomicReference<Throwable> thrown = new AtomicReference<>();
		CountDownLatch returned = new CountDownLatch(1);
		BlockedJob[] job = new BlockedJob[1];
		try {
			runner.run(context -> {
				job[0] = context.getBean(BlockedJob.class);
				Thread caller = new Thread(() -> {
					try {
						job[0].run();
					}
					catch (Throwable ex) {
						thrown.set(ex);
					}
					finally {
						returned.countDown();
					}
				}, "shutdown-seams-caller");
				caller.setDaemon(true);
				caller.start();
				boolean entered = job[0].awaitEntered();
				assertThat(entered).as("annotated body entered (the call threw %s)", thrown.get()).isTrue();
				assertThat(store.hasKey("distlock:{shutdown:annotated}")).isTrue();

				context.close();

				assertGone("distlock:{shutdown:annotated}");
			});
		}
		finally {
			if (job[0] != null) {
				job[0].finish();
			}
		}
		assertThat(returned.await(10, TimeUnit.SECONDS)).as("the annotated call returned once its body ended").isTrue();
	}

	@Test
	void theProvidersOwnConnectionsAreClosedBeforeTheConnectionFactoryStops() {
		FactoryStopProbe probe = new FactoryStopProbe();
		runner.withBean(FactoryStopProbe.class, () -> probe).run(context -> {
			LockTemplate template = context.getBean(LockTemplate.class);
			template.acquire("shutdown:connections", LockOptions.builder().timeout(Duration.ofSeconds(30)).build())
				.release();
			assertThat(lastCommands()).as("the lock-script connection is open before the close")
				.anyMatch(command -> command.startsWith("eval"));

			context.close();

			assertThat(probe.seen).as("last commands of the server's clients just before the factory stopped")
				.isNotNull()
				.noneMatch(command -> command.startsWith("eval"));
		});
	}

	/**
	 * The last command of each client connected to the test's server, the asking connection included: the provider's
	 * lock-script connection is the one whose last command is a script ({@code eval} or {@code evalsha}).
	 */
	private static List<String> lastCommands() {
		List<RedisClientInfo> clients = store
			.execute((RedisCallback<List<RedisClientInfo>>) c -> c.serverCommands().getClientList());
		return clients.stream().map(client -> client.get("cmd")).toList();
	}

	/** Stops just before the connection factory (phase 0) and records what the server's clients last ran. */
	static class FactoryStopProbe implements SmartLifecycle {

		private volatile boolean running;

		volatile List<String> seen;

		@Override
		public void start() {
			running = true;
		}

		@Override
		public void stop() {
			running = false;
			seen = lastCommands();
		}

		@Override
		public boolean isRunning() {
			return running;
		}

		@Override
		public int getPhase() {
			return 1;
		}

	}

	private static void assertGone(String redisKey) throws InterruptedException {
		long deadline = System.nanoTime() + GONE_WITHIN.toNanos();
		while (Boolean.TRUE.equals(store.hasKey(redisKey))) {
			if (System.nanoTime() - deadline > 0) {
				fail("Stranded lock: '" + redisKey + "' still in Redis " + GONE_WITHIN.toMillis()
						+ " ms after the context closed (PTTL " + store.getExpire(redisKey, TimeUnit.MILLISECONDS)
						+ " ms)");
			}
			Thread.sleep(20);
		}
	}

	/** A job whose annotated body blocks until the test lets it finish; reached through its proxy's methods. */
	static class BlockedJob {

		private final CountDownLatch entered = new CountDownLatch(1);

		private final CountDownLatch finish = new CountDownLatch(1);

		public boolean awaitEntered() throws InterruptedException {
			return entered.await(30, TimeUnit.SECONDS);
		}

		public void finish() {
			finish.countDown();
		}

		@DistributedLock(key = "'shutdown:annotated'")
		public void run() throws InterruptedException {
			entered.countDown();
			finish.await(30, TimeUnit.SECONDS);
		}

	}

}
