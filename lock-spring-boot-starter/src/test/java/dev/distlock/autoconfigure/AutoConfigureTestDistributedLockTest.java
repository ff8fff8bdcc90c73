package dev.distlock.autoconfigure;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.stereotype.Service;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.redis.RedisLockProvider;
import dev.distlock.spring.DistributedLock;
import dev.distlock.test.AutoConfigureTestDistributedLock;
import dev.distlock.test.LockAssertions;
import dev.distlock.test.TestLockProvider;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * lock-test's annotation in a whole Boot application that has lock-redis, Spring Boot's Redis auto-configuration and
 * {@code distributed-lock.provider=redis}: the application still locks on the test store. (This test lives in the
 * starter because lock-test does not depend on the starter, so that the starter's tests can use lock-test.) Its control,
 * {@link WithoutAutoConfigureTestDistributedLockTest}, shows the same application locking on Redis.
 */
@SpringBootTest(classes = AutoConfigureTestDistributedLockTest.OrdersApplication.class,
		properties = { "distributed-lock.provider=redis", "spring.data.redis.port=1" })
@AutoConfigureTestDistributedLock
class AutoConfigureTestDistributedLockTest {

	private static final LockOptions TEN_SECONDS = LockOptions.builder().timeout(Duration.ofSeconds(10)).build();

	@Autowired
	private ApplicationContext context;

	@Autowired
	private TestLockProvider locks;

	@Autowired
	private LockTemplate template;

	@Autowired
	private Orders orders;

	@AfterEach
	void reset() {
		locks.reset();
	}

	@Test
	void theApplicationLocksOnTheTestStoreThoughRedisIsConfiguredAndAskedFor() {
		assertThat(context.getBeansOfType(RedisConnectionFactory.class)).hasSize(1);
		assertThat(context.getBeansOfType(RedisLockProvider.class)).isEmpty();
		assertThat(context.getBeansOfType(LockProvider.class)).containsOnlyKeys("testLockProvider");
		assertThat(template.provider()).isSameAs(locks);
	}

	@Test
	void anAnnotatedMethodRunsUnderItsLockAndTheTestSeesWhichLockItTook() {
		assertThat(orders.ship("42")).isEqualTo("shipped 42");

		assertThat(locks.acquiredKeys()).containsExactly("order:42");
		assertThat(locks.lockedKeys()).isEmpty();
	}

	@Test
	void loseLockFiresOnLostOfALockHeldThroughTheApplicationsTemplate() {
		LockHandle handle = template.acquire("report", TEN_SECONDS);
		AtomicInteger onLost = new AtomicInteger();
		handle.onLost(onLost::incrementAndGet);

		assertThat(locks.loseLock("report")).isTrue();

		assertThat(onLost).hasValue(1);
		assertThat(handle.isHeld()).isFalse();
		assertThat(template.tryAcquire("report", TEN_SECONDS)).isPresent();
	}

	@Test
	void afterExpireAnotherCallerTakesTheKey() {
		LockHandle first = template.acquire("nightly", TEN_SECONDS);

		assertThat(locks.expire("nightly")).isTrue();

		assertThat(template.tryAcquire("nightly", TEN_SECONDS)).hasValueSatisfying(
				second -> assertThat(second.fencingToken()).isGreaterThan(first.fencingToken()));
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration(excludeName = { "org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration",
			"org.springframework.boot.mongodb.autoconfigure.MongoReactiveAutoConfiguration",
			"org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration",
			"org.springframework.boot.data.mongodb.autoconfigure.DataMongoReactiveAutoConfiguration",
			"org.springframework.boot.data.mongodb.autoconfigure.DataMongoRepositoriesAutoConfiguration",
			"org.springframework.boot.data.mongodb.autoconfigure.DataMongoReactiveRepositoriesAutoConfiguration",
			"org.springframework.boot.data.redis.autoconfigure.DataRedisRepositoriesAutoConfiguration" })
	@Import(Orders.class)
	static class OrdersApplication {

	}

	@Service
	static class Orders {

		@DistributedLock(key = "'order:' + #id")
		public String ship(String id) {
			LockAssertions.assertLocked("order:" + id);
			return "shipped " + id;
		}

	}

}
