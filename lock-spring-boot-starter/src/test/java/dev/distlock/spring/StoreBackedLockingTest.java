package dev.distlock.spring;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.distlock.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.autoconfigure.MongoLockAutoConfiguration;
import dev.distlock.autoconfigure.RedisLockAutoConfiguration;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.mongo.MongoLockProvider;
import dev.distlock.mongo.testsupport.MongoTestServer;
import dev.distlock.redis.RedisLockProvider;
import dev.distlock.redis.testsupport.RedisServerProcess;
import dev.distlock.spring.LockedServices.Counter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The annotation end to end on each real store: a private redis-server and an in-process MongoDB.
 */
class StoreBackedLockingTest {

	private static RedisServerProcess redis;

	private static MongoTestServer mongo;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RedisLockAutoConfiguration.class, MongoLockAutoConfiguration.class,
				DistributedLockAutoConfiguration.class))
		.withBean(Counter.class);

	@BeforeAll
	static void startStores() {
		redis = RedisServerProcess.startOnFreePort();
		mongo = MongoTestServer.startInProcess();
	}

	@AfterAll
	static void stopStores() {
		redis.close();
		mongo.close();
	}

	@Test
	void annotatedMethodSerializesOnRedis() {
		runner.withBean(RedisConnectionFactory.class,
				() -> new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", redis.port())))
			.run(context -> {
				assertThat(context.getBean(LockProvider.class)).isInstanceOf(RedisLockProvider.class);
				assertCounterExact(context);
			});
	}

	@Test
	void annotatedMethodSerializesOnMongo() {
		runner.withBean(MongoTemplate.class, mongo::template).run(context -> {
			assertThat(context.getBean(LockProvider.class)).isInstanceOf(MongoLockProvider.class);
			assertCounterExact(context);
		});
	}

	private static void assertCounterExact(AssertableApplicationContext context) throws Exception {
		Counter counter = context.getBean(Counter.class);
		ExecutorService pool = Executors.newFixedThreadPool(4);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (int thread = 0; thread < 4; thread++) {
				done.add(pool.submit(() -> {
					for (int i = 0; i < 5; i++) {
						counter.increment("store");
					}
					return null;
				}));
			}
			for (Future<?> future : done) {
				future.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(counter.value("store")).isEqualTo(20);
		assertThat(context.getBean(LockTemplate.class).isLocked("counter:store")).isFalse();
	}

}
