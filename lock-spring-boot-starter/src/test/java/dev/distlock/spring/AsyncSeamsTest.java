package dev.distlock.spring;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;

import dev.distlock.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.core.LockOperations;
import dev.distlock.core.LockTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The lock covers the work itself, not only the call that starts it: a caller cancelling the returned future does not
 * free the lock while the work runs, and an {@code @Async} method's lock is held on the executor thread around its
 * body. Each case is proved with an unguarded read-sleep-write counter and an overlap detector, both exact.
 */
class AsyncSeamsTest {

	private static final ExecutorService workers = Executors.newFixedThreadPool(4);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class))
		.withPropertyValues("distributed-lock.provider=in-memory")
		.withUserConfiguration(Services.class);

	@AfterAll
	static void stopWorkers() {
		workers.shutdownNow();
	}

	@Test
	void cancellingTheReturnedCompletableFutureKeepsTheLockUntilTheWorkEnds() {
		runner.run(context -> {
			FutureWork work = context.getBean(FutureWork.class);
			int calls = 8;
			for (int i = 0; i < calls; i++) {
				// The caller gives up at once, as a caller-side timeout does; the work runs on regardless.
				CompletableFuture<Integer> result = work.completable(40);
				result.cancel(true);
				assertThat(result).isCancelled();
			}
			assertExactAndFree(context.getBean(LockTemplate.class), work.oracle(), calls, "work");
		});
	}

	@Test
	void cancellingTheReturnedCompletionStageKeepsTheLockUntilTheWorkEnds() {
		runner.run(context -> {
			FutureWork work = context.getBean(FutureWork.class);
			int calls = 8;
			for (int i = 0; i < calls; i++) {
				work.stage(40).toCompletableFuture().cancel(true);
			}
			assertExactAndFree(context.getBean(LockTemplate.class), work.oracle(), calls, "work");
		});
	}

	@Test
	void aCancelledFutureStillReleasesTheLockWhenItsWorkCompletes() {
		runner.run(context -> {
			FutureWork work = context.getBean(FutureWork.class);
			LockTemplate template = context.getBean(LockTemplate.class);
			CompletableFuture<Integer> result = work.completable(300);
			result.cancel(false);
			assertThat(template.isLocked("work")).isTrue();
			await().atMost(Duration.ofSeconds(20)).until(() -> work.oracle().value() == 1);
			await().atMost(Duration.ofSeconds(10)).until(() -> !template.isLocked("work"));
			assertThat(new LockOperations(template).heldLocks()).isEmpty();
		});
	}

	@ParameterizedTest(name = "distributed-lock.aop.order={0}")
	@ValueSource(ints = { Integer.MAX_VALUE, -1 })
	void asyncVoidMethodsHoldTheLockAroundTheirBodyOnTheExecutorThread(int order) {
		runner.withPropertyValues("distributed-lock.aop.order=" + order).run(context -> {
			AsyncWork work = context.getBean(AsyncWork.class);
			for (int i = 0; i < 3; i++) {
				work.run();
			}
			assertExactAndFree(context.getBean(LockTemplate.class), work.oracle(), 3, "async");
			assertThat(work.lockedBodies()).hasValue(3);
		});
	}

	@Test
	void asyncFutureMethodsHoldTheLockAroundTheirBodyOnTheExecutorThread() {
		runner.run(context -> {
			AsyncWork work = context.getBean(AsyncWork.class);
			Future<?>[] results = { work.future(), work.future(), work.future() };
			for (Future<?> result : results) {
				result.get(30, TimeUnit.SECONDS);
			}
			assertExactAndFree(context.getBean(LockTemplate.class), work.oracle(), 3, "async-future");
			assertThat(work.lockedBodies()).hasValue(3);
		});
	}

	@Test
	void asyncCompletableFutureMethodsHoldTheLockAroundTheirBodyOnTheExecutorThread() {
		runner.run(context -> {
			AsyncWork work = context.getBean(AsyncWork.class);
			CompletableFuture<?> all = CompletableFuture.allOf(work.completable(), work.completable(),
					work.completable());
			all.get(30, TimeUnit.SECONDS);
			assertExactAndFree(context.getBean(LockTemplate.class), work.oracle(), 3, "async-completable");
			assertThat(work.lockedBodies()).hasValue(3);
		});
	}

	private static void assertExactAndFree(LockTemplate template, Oracle oracle, int calls, String key) {
		await().atMost(Duration.ofSeconds(60)).until(() -> oracle.finished() == calls);
		assertThat(oracle.maxInside()).as("bodies inside at once").isEqualTo(1);
		assertThat(oracle.value()).as("unguarded counter").isEqualTo(calls);
		await().atMost(Duration.ofSeconds(10)).until(() -> !template.isLocked(key));
		assertThat(new LockOperations(template).heldLocks()).isEmpty();
	}

	/** An unguarded read-sleep-write counter with an overlap detector: both exact only if bodies never overlap. */
	static final class Oracle {

		private final AtomicInteger inside = new AtomicInteger();

		private final AtomicInteger maxInside = new AtomicInteger();

		private final AtomicInteger finished = new AtomicInteger();

		private int value;

		void run(long sleepMillis) {
			maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
			try {
				int read = value;
				Thread.sleep(sleepMillis);
				value = read + 1;
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
			finally {
				inside.decrementAndGet();
				finished.incrementAndGet();
			}
		}

		int value() {
			return value;
		}

		int maxInside() {
			return maxInside.get();
		}

		int finished() {
			return finished.get();
		}

	}

	/** Methods whose work runs on another thread and completes the returned stage. */
	static class FutureWork {

		private final Oracle oracle = new Oracle();

		/** The oracle; read through the proxy, which has no state of its own. */
		public Oracle oracle() {
			return oracle;
		}

		@DistributedLock(key = "'work'", retries = Integer.MAX_VALUE, delay = 5, maxWaitString = "60s")
		public CompletableFuture<Integer> completable(long sleepMillis) {
			return CompletableFuture.supplyAsync(() -> {
				oracle.run(sleepMillis);
				return oracle.value();
			}, workers);
		}

		@DistributedLock(key = "'work'", retries = Integer.MAX_VALUE, delay = 5, maxWaitString = "60s")
		public CompletionStage<Integer> stage(long sleepMillis) {
			return CompletableFuture.supplyAsync(() -> {
				oracle.run(sleepMillis);
				return oracle.value();
			}, workers).minimalCompletionStage();
		}

	}

	/** {@code @Async} methods, each sleeping 400 ms under its lock. */
	static class AsyncWork {

		private final Oracle oracle = new Oracle();

		private final AtomicInteger lockedBodies = new AtomicInteger();

		/** The oracle; read through the proxy. */
		public Oracle oracle() {
			return oracle;
		}

		/** How many bodies saw their lock on their own thread; read through the proxy. */
		public AtomicInteger lockedBodies() {
			return lockedBodies;
		}

		@Async
		@DistributedLock(key = "'async'", retries = 50)
		public void run() {
			body();
		}

		@Async
		@DistributedLock(key = "'async-future'", retries = 50)
		public Future<Integer> future() {
			body();
			return CompletableFuture.completedFuture(oracle.value());
		}

		@Async
		@DistributedLock(key = "'async-completable'", retries = 50)
		public CompletableFuture<Integer> completable() {
			body();
			return CompletableFuture.completedFuture(oracle.value());
		}

		private void body() {
			// The lock interceptor ran on this (executor) thread, around this body.
			if (LockContext.find().isPresent()) {
				lockedBodies.incrementAndGet();
			}
			oracle.run(400);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAsync
	static class Services {

		@Bean
		FutureWork futureWork() {
			return new FutureWork();
		}

		@Bean
		AsyncWork asyncWork() {
			return new AsyncWork();
		}

	}

}
