package dev.distlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.distlock.core.internal.WaitLoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The wait loop's rules, whatever the waiter: retries are exact, no wait outlasts maxWait, an interrupt before or
 * during the wait is a typed error with the flag kept, and the waiter is closed exactly once with the flag cleared.
 */
class WaitLoopTest {

	@AfterEach
	void clearInterrupt() {
		Thread.interrupted();
	}

	@Test
	void retriesAreExactWhateverEndsEachWait() {
		Recording waiter = new Recording(true);
		WaitLoop.Outcome<String> outcome = WaitLoop.run("k", retries(3), System::nanoTime, waiter);
		assertThat(outcome.value()).isNull();
		assertThat(outcome.attempts()).isEqualTo(4);
		assertThat(waiter.calls).containsExactly("attempt", "wait", "attempt", "wait", "attempt", "wait", "attempt",
				"close");
	}

	@Test
	void aCallerThatWillNotWaitMakesOneAttemptAndNeverWaits() {
		Recording waiter = new Recording(false);
		WaitLoop.Outcome<String> outcome = WaitLoop.run("k", retries(0), System::nanoTime, waiter);
		assertThat(outcome.attempts()).isEqualTo(1);
		assertThat(waiter.calls).containsExactly("attempt", "close");
	}

	@Test
	void noWaitIsLongerThanWhatIsLeftOfMaxWait() {
		List<Duration> waits = new ArrayList<>();
		WaitLoop.Waiter<String> waiter = new WaitLoop.Waiter<>() {
			@Override
			public @Nullable String tryOnce(long attemptNanos, long loopNanos) {
				return null;
			}

			@Override
			public void awaitSignal(Duration max) throws InterruptedException {
				waits.add(max);
				WaitLoop.Waiter.super.awaitSignal(max);
			}
		};
		LockOptions options = LockOptions.builder().waitUpTo(Duration.ofMillis(300)).delay(Duration.ofSeconds(5))
			.build();
		WaitLoop.Outcome<String> outcome = WaitLoop.run("k", options, System::nanoTime, waiter);
		assertThat(waits).isNotEmpty().allSatisfy(wait -> assertThat(wait).isLessThanOrEqualTo(Duration.ofMillis(300)));
		assertThat(outcome.value()).isNull();
	}

	@Test
	void aThreadInterruptedBeforeTheFirstAttemptSendsNothingAndKeepsItsFlag() {
		Recording waiter = new Recording(false);
		Thread.currentThread().interrupt();
		assertThatThrownBy(() -> WaitLoop.run("k", retries(3), System::nanoTime, waiter))
			.isInstanceOf(LockAcquisitionException.class)
			.hasCauseInstanceOf(InterruptedException.class);
		assertThat(Thread.currentThread().isInterrupted()).isTrue();
		assertThat(waiter.calls).containsExactly("close");
		assertThat(waiter.closedInterrupted).isFalse();
	}

	@Test
	void anInterruptWhileWaitingIsATypedErrorAndTheWaiterClosesWithTheFlagCleared() {
		Recording waiter = new Recording(false) {
			@Override
			public void awaitSignal(Duration max) throws InterruptedException {
				calls.add("wait");
				throw new InterruptedException("test");
			}
		};
		assertThatThrownBy(() -> WaitLoop.run("k", retries(3), System::nanoTime, waiter))
			.isInstanceOf(LockAcquisitionException.class)
			.hasMessageContaining("Interrupted")
			.satisfies(ex -> assertThat(((LockAcquisitionException) ex).attempts()).isEqualTo(1));
		assertThat(Thread.currentThread().isInterrupted()).isTrue();
		assertThat(waiter.calls).containsExactly("attempt", "wait", "close");
		assertThat(waiter.closedInterrupted).isFalse();
	}

	@Test
	void aStoreErrorWhileInterruptedIsReportedAsTheInterrupt() {
		WaitLoop.Waiter<String> waiter = (attemptNanos, loopNanos) -> {
			Thread.currentThread().interrupt();
			throw new LockStoreException("k", "Command interrupted", null);
		};
		assertThatThrownBy(() -> WaitLoop.run("k", retries(3), System::nanoTime, waiter))
			.isInstanceOf(LockAcquisitionException.class)
			.hasCauseInstanceOf(LockStoreException.class);
		assertThat(Thread.currentThread().isInterrupted()).isTrue();
	}

	@Test
	void aStoreErrorEndsTheLoopAndStillClosesTheWaiter() {
		AtomicBoolean closed = new AtomicBoolean();
		WaitLoop.Waiter<String> waiter = new WaitLoop.Waiter<>() {
			@Override
			public @Nullable String tryOnce(long attemptNanos, long loopNanos) {
				throw new LockStoreException("k", "down", null);
			}

			@Override
			public void close() {
				closed.set(true);
			}
		};
		assertThatThrownBy(() -> WaitLoop.run("k", retries(3), System::nanoTime, waiter))
			.isInstanceOf(LockStoreException.class);
		assertThat(closed).isTrue();
	}

	private static LockOptions retries(int retries) {
		return LockOptions.builder().retries(retries).delay(Duration.ofMillis(1)).build();
	}

	private static class Recording implements WaitLoop.Waiter<String> {

		final List<String> calls = new ArrayList<>();

		final boolean signalled;

		boolean closedInterrupted;

		Recording(boolean signalled) {
			this.signalled = signalled;
		}

		@Override
		public @Nullable String tryOnce(long attemptNanos, long loopNanos) {
			calls.add("attempt");
			return null;
		}

		@Override
		public void awaitSignal(Duration max) throws InterruptedException {
			calls.add("wait");
		}

		@Override
		public void close() {
			calls.add("close");
			closedInterrupted = Thread.currentThread().isInterrupted();
		}

	}

}
