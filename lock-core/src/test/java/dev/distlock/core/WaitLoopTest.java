package dev.distlock.core;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.distlock.core.internal.WaitLoop;
import dev.distlock.core.spi.ReleaseNotifier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A provider whose release signals fail (Redis pub/sub refused, say) must not fail the acquire: the wait loop falls
 * back to plain backoff, keeps every retry, and does not try to watch again on each attempt.
 */
class WaitLoopFallbackTest {

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

}
