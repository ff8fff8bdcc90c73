package dev.distlock.core;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
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
	void ticksOfAHandleLeftBehindAtCloseCancelThemselvesOnTheSchedulerHandedIn() throws Exception {
		scheduler.setRemoveOnCancelPolicy(true);
		CountDownLatch unblock = new CountDownLatch(1);
		AtomicInteger handedOver = new AtomicInteger();
		LockTemplate template = LockTemplate.builder(new StuckRenewalProvider(unblock))
			.scheduler(scheduler)
			.renewalExecutor(task -> {
				handedOver.incrementAndGet();
				executor.execute(task);
			})
			.build();
		try {
			LockHandle handle = template.acquire("k", LockOptions.builder().timeout(Duration.ofMillis(300))
				.autoRenew(true).build());
			// its renewal hangs in the store, so its local lease runs out: neither released nor lost, it is no longer
			// among the held locks that close releases, and its ticks keep coming
			await(() -> !handle.isHeld());
			assertThat(new LockOperations(template).heldLocks()).isEmpty();
			template.close();
			await(() -> scheduler.getQueue().isEmpty());
			Thread.sleep(300); // three tick intervals
			int afterClose = handedOver.get();
			assertThat(scheduler.getQueue()).as("ticks left on the owner's scheduler").isEmpty();
			Thread.sleep(300);
			assertThat(handedOver.get()).as("tasks handed to the executor after close").isEqualTo(afterClose);
			assertThat(scheduler.isShutdown()).isFalse();
		}
		finally {
			unblock.countDown();
		}
	}

	/** Grants every request; a renewal hangs until the test ends. */
	private static final class StuckRenewalProvider implements LockProvider {

		private final CountDownLatch unblock;

		StuckRenewalProvider(CountDownLatch unblock) {
			this.unblock = unblock;
		}

		@Override
		public Optional<Lease> tryAcquire(LockRequest request) {
			return Optional.of(new Lease() {
				@Override
				public long fencingToken() {
					return 1;
				}

				@Override
				public boolean extend(Duration lease) {
					try {
						unblock.await();
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
					return true;
				}

				@Override
				public boolean release() {
					return true;
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
