package dev.distlock.core;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.distlock.core.memory.InMemoryLockProvider;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A scheduler and a renewal executor handed to the template's builder (as a Spring Boot application does) run the
 * renewals; closing the template stops its renewals on them and leaves them running for their owner.
 */
class RenewalExecutorTest {

	private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1,
			runnable -> new Thread(runnable, "owner-tick"));

	private final ExecutorService executor = Executors.newCachedThreadPool(runnable -> new Thread(runnable,
			"owner-renewal"));

	private final Set<String> renewingThreads = ConcurrentHashMap.newKeySet();

	private final AtomicInteger renewals = new AtomicInteger();

	private final LockListener recorder = new LockListener() {
		@Override
		public void onRenewed(LockHandle handle) {
			renewingThreads.add(Thread.currentThread().getName());
			renewals.incrementAndGet();
		}
	};

	@AfterEach
	void shutDown() {
		scheduler.shutdownNow();
		executor.shutdownNow();
	}

	@Test
	void renewalsRunOnTheExecutorHandedInAndStopWhenTheTemplateClosesWhileTheExecutorsStayUp() throws Exception {
		scheduler.setRemoveOnCancelPolicy(true);
		LockTemplate template = LockTemplate.builder(new InMemoryLockProvider())
			.scheduler(scheduler)
			.renewalExecutor(executor)
			.listener(recorder)
			.build();
		// a 300 ms lease ticks every 100 ms
		LockHandle handle = template.acquire("k", LockOptions.builder().timeout(Duration.ofMillis(300))
			.autoRenew(true).build());
		await(() -> renewals.get() >= 3);
		assertThat(renewingThreads).containsExactly("owner-renewal");
		assertThat(handle.isHeld()).isTrue();

		template.close();
		int afterClose = renewals.get();
		assertThat(handle.isHeld()).isFalse();
		await(() -> scheduler.getQueue().isEmpty()); // the template's ticks are gone from the owner's scheduler
		Thread.sleep(500); // five tick intervals
		assertThat(renewals.get()).as("renewals after close").isEqualTo(afterClose);
		assertThat(scheduler.isShutdown()).isFalse();
		assertThat(executor.isShutdown()).isFalse();
	}

	@Test
	void ticksOfAHandleStillHeldAtCloseCancelThemselvesOnTheSchedulerHandedIn() throws Exception {
		scheduler.setRemoveOnCancelPolicy(true);
		LockTemplate template = LockTemplate.builder(new UnreleasableProvider())
			.scheduler(scheduler)
			.renewalExecutor(executor)
			.listener(recorder)
			.build();
		LockHandle handle = template.acquire("k", LockOptions.builder().timeout(Duration.ofMillis(300))
			.autoRenew(true).build());
		await(() -> renewals.get() >= 1);
		template.close(); // the release fails with a store error, so the handle stays held and its ticks scheduled
		assertThat(handle.isHeld()).isTrue();
		int afterClose = renewals.get();
		await(() -> scheduler.getQueue().isEmpty());
		Thread.sleep(500);
		assertThat(renewals.get()).as("renewals after close").isEqualTo(afterClose);
	}

	/** Grants every request; every renewal succeeds and every release fails with a store error. */
	private static final class UnreleasableProvider implements LockProvider {

		@Override
		public Optional<Lease> tryAcquire(LockRequest request) {
			return Optional.of(new Lease() {
				@Override
				public long fencingToken() {
					return 1;
				}

				@Override
				public boolean extend(Duration lease) {
					return true;
				}

				@Override
				public boolean release() {
					throw new IllegalStateException("store unreachable");
				}
			});
		}

		@Override
		public boolean isLocked(String key) {
			return true;
		}

	}

	private static void await(BooleanSupplier condition) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (!condition.getAsBoolean() && System.nanoTime() - deadline < 0) {
			Thread.sleep(10);
		}
		assertThat(condition.getAsBoolean()).isTrue();
	}

}
