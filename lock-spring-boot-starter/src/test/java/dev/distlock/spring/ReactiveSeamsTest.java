package dev.distlock.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.distlock.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.autoconfigure.RedisLockAutoConfiguration;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockOperations;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.redis.RedisLockProvider;
import dev.distlock.redis.testsupport.RedisServerProcess;

import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * A {@code Mono} or {@code Flux} whose subscriber leaves before its lock is granted: the grant that arrives afterwards
 * is released at once, not held for its lease nor, with {@code autoRenew}, renewed for ever. Every trial ends with
 * every key free and {@code heldLocks()} empty within a bounded poll, well inside the 10 s lease.
 */
class ReactiveSeamsTest {

	private static final Duration SETTLE = Duration.ofSeconds(5);

	private static RedisServerProcess redis;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RedisLockAutoConfiguration.class,
				DistributedLockAutoConfiguration.class))
		.withBean(Renewed.class);

	@BeforeAll
	static void startRedis() {
		redis = RedisServerProcess.startOnFreePort();
	}

	@AfterAll
	static void stopRedis() {
		redis.close();
	}

	@Test
	void monoCancelledRightAfterSubscribeLeavesNoLockInMemory() {
		inMemory().run(context -> cancelRightAfterSubscribe(context, 60, false));
	}

	@Test
	void fluxCancelledRightAfterSubscribeLeavesNoLockInMemory() {
		inMemory().run(context -> cancelRightAfterSubscribe(context, 60, true));
	}

	@Test
	void monoBlockTimingOutWhileTheLockIsAwaitedLeavesNoLockInMemory() {
		inMemory().run(context -> blockTimesOutWhileWaiting(context, 60, false));
	}

	@Test
	void fluxBlockTimingOutWhileTheLockIsAwaitedLeavesNoLockInMemory() {
		inMemory().run(context -> blockTimesOutWhileWaiting(context, 30, true));
	}

	@Test
	void monoCancelledWhileWaitingOrRightAfterSubscribeLeavesNoLockOnRedis() {
		onRedis().run(context -> {
			assertThat(context.getBean(LockProvider.class)).isInstanceOf(RedisLockProvider.class);
			cancelRightAfterSubscribe(context, 30, false);
			blockTimesOutWhileWaiting(context, 15, false);
		});
	}

	@Test
	void aCancelInterruptsTheWaitSoTheGoneSubscriberIsNeverGrantedTheLock() {
		onRedis().run(context -> {
			Renewed renewed = context.getBean(Renewed.class);
			LockTemplate template = context.getBean(LockTemplate.class);
			List<String> acquired = new java.util.concurrent.CopyOnWriteArrayList<>();
			LockHandle elsewhere = template.acquire("rx:gone");
			Disposable subscription = renewed.mono("gone").subscribe(acquired::add);
			Thread.sleep(300); // the subscription is waiting, queued in Redis behind the holder
			subscription.dispose();
			Thread.sleep(300); // the cancel interrupted the wait, which withdrew from the queue
			elsewhere.release();
			// Had the wait gone on, the release would have handed the lock to the gone subscriber (5 s max wait).
			LockHandle next = template.tryAcquire("rx:gone", LockOptions.builder().retries(0).build()).orElseThrow();
			next.release();
			assertThat(acquired).isEmpty();
			assertAllFree(template, List.of("rx:gone"));
		});
	}

	private ApplicationContextRunner inMemory() {
		return runner.withPropertyValues("distributed-lock.provider=in-memory");
	}

	private ApplicationContextRunner onRedis() {
		return runner.withBean(RedisConnectionFactory.class,
				() -> new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", redis.port())));
	}

	private static void cancelRightAfterSubscribe(AssertableApplicationContext context, int trials, boolean flux) {
		Renewed renewed = context.getBean(Renewed.class);
		List<String> keys = new ArrayList<>();
		for (int trial = 0; trial < trials; trial++) {
			String key = "now-" + flux + "-" + trial;
			keys.add("rx:" + key);
			Disposable subscription = flux ? renewed.flux(key).subscribe() : renewed.mono(key).subscribe();
			subscription.dispose();
		}
		assertAllFree(context.getBean(LockTemplate.class), keys);
	}

	private static void blockTimesOutWhileWaiting(AssertableApplicationContext context, int trials, boolean flux) {
		Renewed renewed = context.getBean(Renewed.class);
		LockTemplate template = context.getBean(LockTemplate.class);
		List<String> keys = new ArrayList<>();
		for (int trial = 0; trial < trials; trial++) {
			String key = "waiting-" + flux + "-" + trial;
			keys.add("rx:" + key);
			// Held elsewhere, so the subscription waits; the caller gives up, then the lock comes free and is granted.
			LockHandle elsewhere = template.acquire("rx:" + key);
			assertThatIllegalStateException().isThrownBy(() -> {
				if (flux) {
					renewed.flux(key).blockLast(Duration.ofMillis(50));
				}
				else {
					renewed.mono(key).block(Duration.ofMillis(50));
				}
			}).withMessageContaining("Timeout");
			elsewhere.release();
		}
		assertAllFree(template, keys);
	}

	private static void assertAllFree(LockTemplate template, List<String> keys) {
		await().atMost(SETTLE).untilAsserted(() -> {
			assertThat(new LockOperations(template).heldLocks()).isEmpty();
			assertThat(keys).allSatisfy(key -> assertThat(template.isLocked(key)).as(key).isFalse());
		});
	}

	/** Renewed locks that a waiter obtains within its 5 s wait. */
	static class Renewed {

		@DistributedLock(key = "'rx:' + #key", autoRenew = true, retries = Integer.MAX_VALUE, delay = 5,
				maxWaitString = "5s")
		public Mono<String> mono(String key) {
			return Mono.just(key);
		}

		@DistributedLock(key = "'rx:' + #key", autoRenew = true, retries = Integer.MAX_VALUE, delay = 5,
				maxWaitString = "5s")
		public Flux<String> flux(String key) {
			return Flux.just(key, key);
		}

	}

}
