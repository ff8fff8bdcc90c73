package dev.distlock.spring;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.distlock.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.core.InvalidLockKeyException;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockTemplate;
import dev.distlock.spring.LockedServices.Async;
import dev.distlock.spring.LockedServices.Counter;
import dev.distlock.spring.LockedServices.Keys;
import dev.distlock.spring.LockedServices.Order;
import dev.distlock.spring.LockedServices.WholeClass;

import reactor.core.Disposable;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

class DistributedLockInterceptorTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class))
		.withPropertyValues("distributed-lock.provider=in-memory")
		.withUserConfiguration(Services.class);

	@Test
	void eightThreadsOnOneKeyLeaveTheUnguardedCounterExact() {
		run(context -> {
			Counter counter = context.getBean(Counter.class);
			ExecutorService pool = Executors.newFixedThreadPool(8);
			try {
				List<Future<?>> done = new ArrayList<>();
				for (int thread = 0; thread < 8; thread++) {
					done.add(pool.submit(() -> {
						for (int i = 0; i < 10; i++) {
							counter.increment("shared");
						}
						return null;
					}));
				}
				for (Future<?> future : done) {
					future.get(30, TimeUnit.SECONDS);
				}
			}
			finally {
				pool.shutdownNow();
			}
			assertThat(counter.value("shared")).isEqualTo(80);
		});
	}

	@Test
	void distinctKeysRunAtTheSameTime() {
		run(context -> {
			Keys keys = context.getBean(Keys.class);
			CountDownLatch bothInside = new CountDownLatch(2);
			CompletableFuture<Boolean> first = CompletableFuture.supplyAsync(() -> meet(keys, "a", bothInside));
			CompletableFuture<Boolean> second = CompletableFuture.supplyAsync(() -> meet(keys, "b", bothInside));
			// Each call waits inside its lock for the other to arrive: only possible if the locks are distinct.
			assertThat(first.get(10, TimeUnit.SECONDS)).isTrue();
			assertThat(second.get(10, TimeUnit.SECONDS)).isTrue();
		});
	}

	@Test
	void sameKeyHeldElsewhereFailsWithoutRunning() {
		run(context -> {
			Keys keys = context.getBean(Keys.class);
			try (LockHandle held = context.getBean(LockTemplate.class).acquire("meet:x")) {
				assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> keys.meet("x", new CountDownLatch(0)));
			}
		});
	}

	@Test
	void keyExpressionsSeeParametersByNameIndexAndRoot() {
		run(context -> assertThat(context.getBean(Keys.class).describe("n", 7, new Order("o-1", 3)))
			.isEqualTo("describe:n:7:o-1:3"));
	}

	@Test
	void keyExpressionsSeeRootMethodTargetAndArgs() {
		run(context -> assertThat(context.getBean(Keys.class).rooted("a-1", 2)).isEqualTo("rooted:eu:a-1:2"));
	}

	@Test
	void nullBlankOrOverlongKeyNeverRunsTheBody() {
		run(context -> {
			Keys keys = context.getBean(Keys.class);
			assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> keys.byId(null))
				.withMessageContaining("Keys.byId(String)");
			assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> keys.byId("  "));
			assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> keys.byId("k".repeat(600)));
			assertThat(keys.bodies()).isZero();
		});
	}

	@Test
	void keysAttributeLocksAGroupInKeyOrder() {
		run(context -> assertThat(context.getBean(Keys.class).pair("9", "1")).containsExactly("seat:1", "seat:9"));
	}

	@Test
	void classLevelAnnotationLocksEveryPublicMethodUnderClassAndMethodName() {
		run(context -> {
			WholeClass whole = context.getBean(WholeClass.class);
			assertThat(whole.first()).isEqualTo("WholeClass.first");
			assertThat(whole.second()).isEqualTo("WholeClass.second");
		});
	}

	@Test
	void skipReturnsNothingWithoutRunningWhenHeld() {
		run(context -> {
			Keys keys = context.getBean(Keys.class);
			try (LockHandle held = context.getBean(LockTemplate.class).acquire("skip:k")) {
				assertThat(keys.skipping("k")).isNull();
				assertThat(keys.skippingOptional("k")).isEmpty();
			}
			assertThat(keys.bodies()).isZero();
			assertThat(keys.skipping("k")).isEqualTo("ran");
		});
	}

	@Test
	void holdAtLeastKeepsTheLockAfterAFastMethodReturns() {
		runner.withPropertyValues("test.hold=5s").run(context -> {
			context.getBean(Keys.class).brief("k");
			assertThat(context.getBean(LockTemplate.class).isLocked("brief:k")).isTrue();
		});
	}

	@Test
	void sharedLockAdmitsMaxConcurrentHolders() {
		run(context -> {
			Keys keys = context.getBean(Keys.class);
			CountDownLatch bothInside = new CountDownLatch(2);
			CompletableFuture<Boolean> first = CompletableFuture.supplyAsync(() -> shared(keys, bothInside));
			CompletableFuture<Boolean> second = CompletableFuture.supplyAsync(() -> shared(keys, bothInside));
			assertThat(first.get(10, TimeUnit.SECONDS)).isTrue();
			assertThat(second.get(10, TimeUnit.SECONDS)).isTrue();
		});
	}

	@Test
	void completableFutureHoldsTheLockUntilItCompletes() {
		run(context -> {
			Async async = context.getBean(Async.class);
			LockTemplate template = context.getBean(LockTemplate.class);
			CompletableFuture<String> result = async.future();
			assertThat(template.isLocked("future")).isTrue();
			assertThat(result).isNotDone();
			async.gate().complete("done");
			assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("done:future");
			assertThat(template.isLocked("future")).isFalse();
		});
	}

	@Test
	void monoHoldsTheLockFromSubscriptionUntilItCompletes() {
		run(context -> {
			Async async = context.getBean(Async.class);
			LockTemplate template = context.getBean(LockTemplate.class);
			Mono<String> mono = async.mono();
			assertThat(template.isLocked("mono")).isFalse();
			CompletableFuture<String> result = mono.toFuture();
			await().atMost(5, TimeUnit.SECONDS).until(() -> template.isLocked("mono"));
			async.gate().complete("done");
			assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("done:mono");
			assertThat(template.isLocked("mono")).isFalse();
		});
	}

	@Test
	void cancellingAFluxReleasesItsLock() {
		run(context -> {
			Async async = context.getBean(Async.class);
			LockTemplate template = context.getBean(LockTemplate.class);
			Disposable subscription = async.endless().subscribe();
			await().atMost(5, TimeUnit.SECONDS).until(() -> template.isLocked("flux"));
			assertThat(async.seen()).isNotNull().extracting(LockHandle::key).isEqualTo("flux");
			subscription.dispose();
			await().atMost(5, TimeUnit.SECONDS).until(() -> !template.isLocked("flux"));
		});
	}

	private void run(ContextConsumer<AssertableApplicationContext> test) {
		runner.run(test);
	}

	private static boolean meet(Keys keys, String key, CountDownLatch latch) {
		try {
			return keys.meet(key, latch);
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static boolean shared(Keys keys, CountDownLatch latch) {
		try {
			return keys.shared("s", latch);
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		Counter counter() {
			return new Counter();
		}

		@Bean
		Keys keys() {
			return new Keys();
		}

		@Bean
		WholeClass wholeClass() {
			return new WholeClass();
		}

		@Bean
		Async async() {
			return new Async();
		}

	}

}
