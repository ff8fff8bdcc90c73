package dev.distlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.distlock.core.internal.WaitLoop;
import dev.distlock.core.spi.ReleaseNotifier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The wait loop's use of release signals. A provider whose signals fail (Redis pub/sub refused, say) must not fail the
 * acquire: the loop falls back to plain backoff, keeps every retry, and does not try to watch again on each attempt.
 * Where watching is free, it watches before the first attempt and owes no re-check after a refusal.
 */
class WaitLoopTest {

	@Test
	void aNotifierThatCannotWatchFallsBackToPollingWithEveryRetry() {
		AtomicInteger watches = new AtomicInteger();
		ReleaseNotifier broken = key -> {
			watches.incrementAndGet();
			throw new IllegalStateException("SUBSCRIBE refused");
		};
		AtomicInteger attempts = new AtomicInteger();
		LockOptions options = LockOptions.builder().retries(3).delay(Duration.ofMillis(1)).build();

		WaitLoop.Outcome<String> outcome = WaitLoop.run("k", options, broken, System::nanoTime,
				(attempt, loop) -> attempts.incrementAndGet() == 4 ? "acquired" : null);

		assertThat(outcome.value()).isEqualTo("acquired");
		assertThat(outcome.attempts()).isEqualTo(4);
		assertThat(attempts.get()).isEqualTo(4);
		assertThat(watches.get()).isEqualTo(1);
	}

	@Test
	void aNotifierThatCannotWatchStillEndsAfterTheRetries() {
		ReleaseNotifier broken = key -> {
			throw new IllegalStateException("SUBSCRIBE refused");
		};
		LockOptions options = LockOptions.builder().retries(2).delay(Duration.ofMillis(1)).build();

		WaitLoop.Outcome<String> outcome = WaitLoop.run("k", options, broken, System::nanoTime,
				(attempt, loop) -> null);

		assertThat(outcome.value()).isNull();
		assertThat(outcome.attempts()).isEqualTo(3);
	}

	@Test
	void aFreeWatchOpensBeforeTheFirstAttemptAndSavesTheReCheck() {
		List<String> calls = new ArrayList<>();
		ReleaseNotifier free = new CountingNotifier(true, calls);
		LockOptions options = LockOptions.builder().retries(2).delay(Duration.ofMillis(1)).build();

		WaitLoop.Outcome<String> outcome = WaitLoop.run("k", options, free, System::nanoTime, (attempt, loop) -> {
			calls.add("attempt");
			return null;
		});

		assertThat(outcome.attempts()).isEqualTo(3);
		assertThat(calls).containsExactly("watch", "attempt", "attempt", "attempt", "close");
	}

	@Test
	void aWatchThatIsNotFreeOpensAfterTheFirstRefusalAndReChecksAtOnce() {
		List<String> calls = new ArrayList<>();
		ReleaseNotifier notFree = new CountingNotifier(false, calls);
		LockOptions options = LockOptions.builder().retries(2).delay(Duration.ofMillis(1)).build();

		WaitLoop.Outcome<String> outcome = WaitLoop.run("k", options, notFree, System::nanoTime, (attempt, loop) -> {
			calls.add("attempt");
			return null;
		});

		assertThat(outcome.attempts()).isEqualTo(4);
		assertThat(calls).containsExactly("attempt", "watch", "attempt", "attempt", "attempt", "close");
	}

	@Test
	void aCallerThatWillNotWaitNeverWatches() {
		List<String> calls = new ArrayList<>();
		ReleaseNotifier free = new CountingNotifier(true, calls);

		WaitLoop.run("k", LockOptions.defaults(), free, System::nanoTime, (attempt, loop) -> {
			calls.add("attempt");
			return null;
		});

		assertThat(calls).containsExactly("attempt");
	}

	private record CountingNotifier(boolean free, List<String> calls) implements ReleaseNotifier {

		@Override
		public boolean isWatchFree(String key) {
			return free;
		}

		@Override
		public Watch watch(String key) {
			calls.add("watch");
			return new Watch() {
				@Override
				public boolean await(Duration max) {
					return false;
				}

				@Override
				public void close() {
					calls.add("close");
				}
			};
		}

	}

}
