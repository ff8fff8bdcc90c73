package dev.distlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.distlock.core.spi.Acquisition;
import dev.distlock.core.spi.Lease;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 19's FIFO risk: a store that keeps a waiter's place only while attempts refresh it declares the longest wait,
 * and the loop never waits longer, whatever the backoff says, without using up retries.
 */
class WaitLoopLongestWaitTest {

	/** An acquisition on a pretend clock: each wait moves the clock by what it was given. */
	private static final class Waiter implements Acquisition {

		final AtomicLong clock = new AtomicLong();

		final List<Duration> waits = new ArrayList<>();

		final @Nullable Duration longest;

		final int succeedAt;

		/** From this attempt on, the acquisition declares no longest wait. */
		int noLongestFrom = Integer.MAX_VALUE;

		int attempts;

		Waiter(@Nullable Duration longest, int succeedAt) {
			this.longest = longest;
			this.succeedAt = succeedAt;
		}

		@Override
		public Optional<Granted> tryOnce() {
			return ++attempts == succeedAt ? Optional.of(new Granted(new GrantedLease(), clock.get())) : Optional.empty();
		}

		@Override
		public @Nullable Duration longestWait() {
			return attempts >= noLongestFrom ? null : longest;
		}

		@Override
		public boolean awaitSignal(Duration max) {
			waits.add(max);
			clock.addAndGet(max.toNanos());
			return false;
		}

		@Override
		public void close() {
		}

	}

	/** The lease of the granted attempt; the loop never touches it. */
	private static final class GrantedLease implements Lease {

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
			return true;
		}

	}

	@Test
	void noWaitOutlastsTheDeclaredLongestWaitAndTheExtraAttemptsUseUpNoRetry() {
		Waiter waiter = new Waiter(Duration.ofMillis(500), 7);
		LockOptions options = LockOptions.builder().retries(1).delay(Duration.ofSeconds(5)).build();

		WaitLoopTest.Outcome outcome = WaitLoopTest.drive(options, waiter.clock::get, waiter);

		assertThat(outcome.granted()).isTrue();
		assertThat(waiter.attempts).as("tried").isEqualTo(7);
		// Granted by the sixth attempt that kept its place within the first retry's delay: only the first counts.
		assertThat(outcome.attempts()).isEqualTo(1);
		assertThat(waiter.waits).isNotEmpty().allSatisfy(wait -> assertThat(wait).isLessThanOrEqualTo(Duration.ofMillis(500)));
	}

	@Test
	void withTheDeclaredLongestWaitTheRetriesAndTheirDelaysStillEndTheWaitAsTheBackoffSays() {
		Waiter waiter = new Waiter(Duration.ofMillis(500), Integer.MAX_VALUE);
		LockOptions options = LockOptions.builder().retries(2).delay(Duration.ofSeconds(2)).build();

		WaitLoopTest.Outcome outcome = WaitLoopTest.drive(options, waiter.clock::get, waiter);

		assertThat(outcome.granted()).isFalse();
		// 1 + 2 retries counted, and 3 refreshes within each 2 s delay tried but not counted
		assertThat(waiter.attempts).isEqualTo(3 + 2 * 3);
		assertThat(outcome.attempts()).isEqualTo(3);
		assertThat(Duration.ofNanos(waiter.clock.get())).isEqualTo(Duration.ofSeconds(4));
	}

	@Test
	void aLongestWaitTheAcquisitionNoLongerDeclaresEndsItsStepsWithinTheDelayAndTheRestIsOneWait() {
		Waiter waiter = new Waiter(Duration.ofMillis(500), Integer.MAX_VALUE);
		waiter.noLongestFrom = 3; // as a JDBC writer that stops reading at its own step once the holder holds on
		LockOptions options = LockOptions.builder().retries(1).delay(Duration.ofSeconds(5)).build();

		WaitLoopTest.Outcome outcome = WaitLoopTest.drive(options, waiter.clock::get, waiter);

		assertThat(waiter.attempts).isEqualTo(4);
		assertThat(outcome.attempts()).as("the first and the one retry").isEqualTo(2);
		assertThat(waiter.waits).containsExactly(Duration.ofMillis(500), Duration.ofMillis(500), Duration.ofSeconds(4));
	}

	@Test
	void withoutADeclaredLongestWaitTheBackoffDelayIsOneWait() {
		Waiter waiter = new Waiter(null, Integer.MAX_VALUE);
		LockOptions options = LockOptions.builder().retries(1).delay(Duration.ofSeconds(5)).build();

		WaitLoopTest.Outcome outcome = WaitLoopTest.drive(options, waiter.clock::get, waiter);

		assertThat(outcome.attempts()).isEqualTo(2);
		assertThat(waiter.waits).containsExactly(Duration.ofSeconds(5));
	}

}
