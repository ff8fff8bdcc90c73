package dev.distlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.distlock.core.internal.WaitLoop;
import dev.distlock.core.spi.Acquisition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The wait loop's rules, whatever the acquisition: retries are exact, no wait outlasts maxWait, an interrupt before or
 * during the wait is a typed error with the flag kept, and the acquisition is closed exactly once with the flag
 * cleared.
 */
class WaitLoopTest {

	@AfterEach
	void clearInterrupt() {
		Thread.interrupted();
	}

	@Test
	void retriesAreExactWhateverEndsEachWait() {
		Recording acquisition = new Recording();
		Outcome outcome = drive(retries(3), System::nanoTime, acquisition);
		assertThat(outcome.granted()).isFalse();
		assertThat(outcome.attempts()).isEqualTo(4);
		assertThat(acquisition.calls).containsExactly("attempt", "wait", "attempt", "wait", "attempt", "wait",
				"attempt", "close");
	}

	@Test
	void aCallerThatWillNotWaitMakesOneAttemptAndNeverWaits() {
		Recording acquisition = new Recording();
		Outcome outcome = drive(retries(0), System::nanoTime, acquisition);
		assertThat(outcome.attempts()).isEqualTo(1);
		assertThat(acquisition.calls).containsExactly("attempt", "close");
	}

	@Test
	void noWaitIsLongerThanWhatIsLeftOfMaxWait() {
		List<Duration> waits = new ArrayList<>();
		Recording acquisition = new Recording() {
			@Override
			public boolean awaitSignal(Duration max) throws InterruptedException {
				waits.add(max);
				TimeUnit.NANOSECONDS.sleep(max.toNanos());
				return false;
			}
		};
		LockOptions options = LockOptions.builder().waitUpTo(Duration.ofMillis(300)).delay(Duration.ofSeconds(5))
			.build();
		Outcome outcome = drive(options, System::nanoTime, acquisition);
		assertThat(waits).isNotEmpty().allSatisfy(wait -> assertThat(wait).isLessThanOrEqualTo(Duration.ofMillis(300)));
		assertThat(outcome.granted()).isFalse();
	}

	@Test
	void aThreadInterruptedBeforeTheFirstAttemptSendsNothingAndKeepsItsFlag() {
		Recording acquisition = new Recording();
		Thread.currentThread().interrupt();
		assertThatThrownBy(() -> drive(retries(3), System::nanoTime, acquisition))
			.isInstanceOf(LockAcquisitionException.class)
			.hasCauseInstanceOf(InterruptedException.class);
		assertThat(Thread.currentThread().isInterrupted()).isTrue();
		assertThat(acquisition.calls).containsExactly("close");
		assertThat(acquisition.closedInterrupted).isFalse();
	}

	@Test
	void anInterruptWhileWaitingIsATypedErrorAndTheAcquisitionClosesWithTheFlagCleared() {
		Recording acquisition = new Recording() {
			@Override
			public boolean awaitSignal(Duration max) throws InterruptedException {
				calls.add("wait");
				throw new InterruptedException("test");
			}
		};
		assertThatThrownBy(() -> drive(retries(3), System::nanoTime, acquisition))
			.isInstanceOf(LockAcquisitionException.class)
			.hasMessageContaining("Interrupted")
			.satisfies(ex -> assertThat(((LockAcquisitionException) ex).attempts()).isEqualTo(1));
		assertThat(Thread.currentThread().isInterrupted()).isTrue();
		assertThat(acquisition.calls).containsExactly("attempt", "wait", "close");
		assertThat(acquisition.closedInterrupted).isFalse();
	}

	@Test
	void aStoreErrorWhileInterruptedIsReportedAsTheInterrupt() {
		Recording acquisition = new Recording() {
			@Override
			public Optional<Granted> tryOnce() {
				Thread.currentThread().interrupt();
				throw new LockStoreException("k", "Command interrupted", null);
			}
		};
		assertThatThrownBy(() -> drive(retries(3), System::nanoTime, acquisition))
			.isInstanceOf(LockAcquisitionException.class)
			.hasCauseInstanceOf(LockStoreException.class);
		assertThat(Thread.currentThread().isInterrupted()).isTrue();
	}

	@Test
	void aStoreErrorEndsTheLoopAndStillClosesTheAcquisition() {
		AtomicBoolean closed = new AtomicBoolean();
		Recording acquisition = new Recording() {
			@Override
			public Optional<Granted> tryOnce() {
				throw new LockStoreException("k", "down", null);
			}

			@Override
			public void close() {
				closed.set(true);
			}
		};
		assertThatThrownBy(() -> drive(retries(3), System::nanoTime, acquisition))
			.isInstanceOf(LockStoreException.class);
		assertThat(closed).isTrue();
	}

	@Test
	void theAcquisitionIsClosedOnceHoweverOftenTheLoopIsClosed() {
		Recording acquisition = new Recording();
		WaitLoop loop = WaitLoop.start("k", retries(0), System::nanoTime, acquisition);
		loop.close();
		loop.close();
		assertThat(acquisition.calls).containsExactly("close");
	}

	/**
	 * Drives the loop as {@code LockAcquirer} does: the acquisition's {@link Acquisition#tryOnce()} per attempt.
	 */
	static Outcome drive(LockOptions options, LongSupplier nanoClock, Acquisition acquisition) {
		WaitLoop loop = WaitLoop.start("k", options, nanoClock, acquisition);
		try {
			while (loop.next()) {
				boolean granted;
				try {
					granted = acquisition.tryOnce().isPresent();
				}
				catch (RuntimeException ex) {
					throw loop.failed(ex);
				}
				if (granted) {
					return new Outcome(true, loop.attempts());
				}
			}
		}
		finally {
			loop.close();
		}
		return new Outcome(false, loop.attempts());
	}

	/**
	 * How a driven loop ended.
	 */
	record Outcome(boolean granted, int attempts) {
	}

	private static LockOptions retries(int retries) {
		return LockOptions.builder().retries(retries).delay(Duration.ofMillis(1)).build();
	}

	/** Records its attempts, waits (which return at once) and close; no attempt is granted. */
	private static class Recording implements Acquisition {

		final List<String> calls = new ArrayList<>();

		boolean closedInterrupted;

		@Override
		public Optional<Granted> tryOnce() {
			calls.add("attempt");
			return Optional.empty();
		}

		@Override
		public boolean awaitSignal(Duration max) throws InterruptedException {
			calls.add("wait");
			return true;
		}

		@Override
		public void close() {
			calls.add("close");
			closedInterrupted = Thread.currentThread().isInterrupted();
		}

	}

}
