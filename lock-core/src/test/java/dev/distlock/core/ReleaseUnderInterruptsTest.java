package dev.distlock.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.distlock.core.memory.InMemoryLockProvider;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A release that another thread's interrupt cuts short, again and again (a storm of interrupts), still reaches the
 * store: it is run again, uninterrupted, a bounded number of times, and the caller's interrupt status is kept; past
 * that bound the caller gets a typed error and the template runs the release again later ({@link FailedReleaseRetryTest}).
 */
class ReleaseUnderInterruptsTest {

	/** How many of the next release calls are cut short: each sets the interrupt flag, as another thread would. */
	private final AtomicInteger cutShort = new AtomicInteger();

	private final AtomicInteger releaseCalls = new AtomicInteger();

	private final InMemoryLockProvider store = new InMemoryLockProvider();

	private final LockTemplate template = new LockTemplate(new InterruptedReleases());

	@AfterEach
	void close() {
		template.close();
	}

	@Test
	void aReleaseInterruptedTwiceDuringTheCallStillFreesTheKeyAndKeepsTheInterrupt() {
		LockHandle handle = template.acquire("storm", LockOptions.builder().timeout(Duration.ofSeconds(20)).build());
		cutShort.set(2);
		handle.release();
		assertThat(Thread.interrupted()).as("the interrupts that came during the release are kept").isTrue();
		assertThat(releaseCalls).hasValue(3);
		assertThat(store.isLocked("storm")).isFalse();
		assertThat(handle.isHeld()).isFalse();
	}

	@Test
	void aReleaseInterruptedOnEveryCallGivesUpAfterABoundedNumberOfRunsWithATypedError() {
		LockHandle handle = template.acquire("storm", LockOptions.builder().timeout(Duration.ofSeconds(20)).build());
		cutShort.set(Integer.MAX_VALUE);
		assertThatThrownBy(handle::release).isInstanceOf(LockReleaseException.class);
		assertThat(Thread.interrupted()).isTrue();
		assertThat(releaseCalls).hasValue(3);
		cutShort.set(0);
		assertThat(store.isLocked("storm")).as("held until the template runs the release again in the background (FailedReleaseRetryTest)").isTrue();
	}

	/** The in-memory store, whose release is cut short by an interrupt while {@link #cutShort} is above zero. */
	private final class InterruptedReleases implements LockProvider {

		@Override
		public Optional<Lease> tryAcquire(LockRequest request) {
			return store.tryAcquire(request).map(InterruptedLease::new);
		}

		@Override
		public boolean isLocked(String key) {
			return store.isLocked(key);
		}

	}

	private final class InterruptedLease implements Lease {

		private final Lease delegate;

		InterruptedLease(Lease delegate) {
			this.delegate = delegate;
		}

		@Override
		public long fencingToken() {
			return delegate.fencingToken();
		}

		@Override
		public boolean extend(Duration lease) {
			return delegate.extend(lease);
		}

		@Override
		public boolean release() {
			releaseCalls.incrementAndGet();
			if (cutShort.getAndDecrement() > 0) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("interrupted during the call");
			}
			return delegate.release();
		}

	}

}
