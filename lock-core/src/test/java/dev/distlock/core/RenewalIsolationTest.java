package dev.distlock.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One renewal stuck in the store delays no other lock's renewal: renewals run off the watchdog's ticking thread, and
 * a lock whose own renewal is still running skips its next tick instead of stacking more calls.
 */
class RenewalIsolationTest {

	private final CountDownLatch unblock = new CountDownLatch(1);

	private final AtomicInteger stuckCalls = new AtomicInteger();

	private final AtomicInteger healthyRenewals = new AtomicInteger();

	@Test
	void aRenewalThatHangsDoesNotDelayTheRenewalsOfOtherLocks() throws Exception {
		LockProvider provider = new LockProvider() {
			@Override
			public Optional<Lease> tryAcquire(LockRequest request) {
				boolean stuck = request.key().equals("stuck");
				return Optional.of(new Lease() {
					@Override
					public long fencingToken() {
						return 1;
					}

					@Override
					public boolean extend(Duration lease) {
						if (stuck) {
							stuckCalls.incrementAndGet();
							try {
								unblock.await(); // a store call that never answers, until the test ends
							}
							catch (InterruptedException ex) {
								Thread.currentThread().interrupt();
							}
							return true;
						}
						healthyRenewals.incrementAndGet();
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
				return false;
			}
		};
		// Ticks come every lease / 3 = 1 s; the bounds below wait for events, not for time, so a loaded machine only
		// makes the test slower.
		LockOptions renewed = LockOptions.builder().timeout(Duration.ofSeconds(3)).autoRenew(true).build();
		try (LockTemplate template = new LockTemplate(provider)) {
			LockHandle stuck = template.acquire("stuck", renewed);
			LockHandle healthy = template.acquire("healthy", renewed);
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
			// Five renewals of the healthy lock take at least four ticks, so the stuck lock's 3 s lease has run out.
			while (healthyRenewals.get() < 5 && System.nanoTime() - deadline < 0) {
				Thread.sleep(20);
			}
			assertThat(healthyRenewals.get()).as("renewals of the healthy lock").isGreaterThanOrEqualTo(5);
			assertThat(healthy.isHeld()).isTrue();
			assertThat(stuckCalls.get()).as("store calls of the stuck lock: one, never stacked").isEqualTo(1);
			assertThat(stuck.isHeld()).isFalse(); // its local lease ran out while the renewal hung
			unblock.countDown();
			healthy.release();
		}
		finally {
			unblock.countDown();
		}
		assertThat(unblock.await(0, TimeUnit.SECONDS)).isTrue();
	}

}
