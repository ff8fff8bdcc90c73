package dev.distlock.core;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The watchdog renews by sweeping the held handles: a short lease taken beside long ones is renewed on its own
 * interval, a released handle is renewed no more, a renewal slower than its interval is never stacked with a second,
 * and a stream of renewed locks schedules one sweep, not a task per lock. The bounds wait for events and count calls;
 * a loaded machine makes the tests slower, not wrong.
 */
class RenewalSweepTest {

	private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1,
			runnable -> new Thread(runnable, "sweep-test-tick"));

	private final CountingProvider provider = new CountingProvider();

	RenewalSweepTest() {
		scheduler.setRemoveOnCancelPolicy(true);
	}

	@AfterEach
	void shutDown() {
		scheduler.shutdownNow();
	}

	@Test
	void aShortLeaseTakenBesideALongOneIsRenewedOnItsOwnInterval() throws Exception {
		try (LockTemplate template = LockTemplate.builder(provider).scheduler(scheduler).build()) {
			// the long lease's first renewal is due in 100 s (75 s with the sweep's quarter early): the sweep it
			// scheduled is far off, so the short lease must bring one forward
			LockHandle longLease = template.acquire("long", renewing(Duration.ofSeconds(300)));
			LockHandle shortLease = template.acquire("short", renewing(Duration.ofMillis(600)));
			await(() -> provider.extends_("short") >= 3);
			assertThat(provider.extends_("long")).as("renewals of the long lease").isZero();
			assertThat(provider.lost.get()).as("renewals the store refused").isZero();
			shortLease.release();
			longLease.release();
		}
	}

	@Test
	void aReleasedHandleIsRenewedNoMore() throws Exception {
		try (LockTemplate template = LockTemplate.builder(provider).scheduler(scheduler).build()) {
			LockHandle kept = template.acquire("kept", renewing(Duration.ofMillis(900)));
			LockHandle released = template.acquire("released", renewing(Duration.ofMillis(900)));
			await(() -> provider.extends_("released") >= 1);
			released.release();
			int atRelease = provider.extends_("released");
			// the kept lock's renewals show the sweep still runs: three more take at least two intervals (0.6 s)
			int keptAtRelease = provider.extends_("kept");
			await(() -> provider.extends_("kept") >= keptAtRelease + 3);
			assertThat(provider.extends_("released")).as("renewals after release").isEqualTo(atRelease);
			assertThat(provider.afterRelease.get()).as("renewals that reached a released lease").isZero();
			kept.release();
		}
	}

	@Test
	void aRenewalSlowerThanItsIntervalIsNeverStackedWithAnother() throws Exception {
		provider.extendMillis = 400; // the interval is 100 ms
		try (LockTemplate template = LockTemplate.builder(provider).scheduler(scheduler).build()) {
			LockHandle handle = template.acquire("slow", renewing(Duration.ofMillis(300)));
			await(() -> provider.extends_("slow") >= 3);
			assertThat(provider.mostAtOnce.get()).as("renewals of one handle in flight at once").isEqualTo(1);
			handle.close();
		}
		catch (LockReleaseException ex) {
			// its local lease may have run out meanwhile (each renewal takes longer than the lease's third)
		}
	}

	@Test
	void aStreamOfRenewedLocksSchedulesOneSweepNotOneTaskPerLock() {
		try (LockTemplate template = LockTemplate.builder(provider).scheduler(scheduler).build()) {
			for (int i = 0; i < 1000; i++) {
				template.acquire("k" + (i % 8), renewing(Duration.ofSeconds(300))).release();
			}
			// the first lock scheduled the sweep (due in 75 s); every later one is due after it
			assertThat(scheduler.getTaskCount()).as("tasks ever scheduled").isEqualTo(1);
		}
		assertThat(scheduler.getQueue()).as("sweeps left after close").isEmpty();
	}

	private static LockOptions renewing(Duration lease) {
		return LockOptions.builder().timeout(lease).autoRenew(true).build();
	}

	private static void await(BooleanSupplier condition) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (!condition.getAsBoolean() && System.nanoTime() - deadline < 0) {
			Thread.sleep(10);
		}
		assertThat(condition.getAsBoolean()).isTrue();
	}

	/** Grants every request; counts each key's extends, those reaching a released lease, and extends at once. */
	private static final class CountingProvider implements LockProvider {

		private final Map<String, AtomicInteger> extendsByKey = new ConcurrentHashMap<>();

		private final AtomicInteger afterRelease = new AtomicInteger();

		private final AtomicInteger lost = new AtomicInteger();

		private final AtomicInteger inFlight = new AtomicInteger();

		private final AtomicInteger mostAtOnce = new AtomicInteger();

		private volatile long extendMillis;

		int extends_(String key) {
			AtomicInteger count = extendsByKey.get(key);
			return count == null ? 0 : count.get();
		}

		@Override
		public Optional<Lease> tryAcquire(LockRequest request) {
			return Optional.of(new Lease() {

				private volatile boolean released;

				@Override
				public long fencingToken() {
					return 1;
				}

				@Override
				public boolean extend(Duration lease) {
					mostAtOnce.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
					try {
						if (extendMillis > 0) {
							Thread.sleep(extendMillis);
						}
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
					finally {
						inFlight.decrementAndGet();
					}
					if (released) {
						afterRelease.incrementAndGet();
						lost.incrementAndGet();
						return false;
					}
					extendsByKey.computeIfAbsent(request.key(), key -> new AtomicInteger()).incrementAndGet();
					return true;
				}

				@Override
				public boolean release() {
					released = true;
					return true;
				}
			});
		}

		@Override
		public boolean isLocked(String key) {
			return false;
		}

	}

}
