package dev.distlock.core;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.distlock.core.memory.InMemoryLockProvider;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What listeners hear of an acquisition: one start and exactly one end on the caller's thread, whichever way it ends,
 * with its outcome and attempts; and the scope of guarded work, opened before the callback and closed before the
 * release.
 */
class AcquireEventsTest {

	private static final LockOptions ONE_TRY = LockOptions.builder().timeout(Duration.ofSeconds(10)).build();

	private final List<String> events = new CopyOnWriteArrayList<>();

	private final LockTemplate template = LockTemplate.builder(new InMemoryLockProvider())
		.listener(new Recording())
		.build();

	@AfterEach
	void close() {
		template.close();
	}

	@Test
	void aGrantIsHeardBetweenTheStartAndTheEndOfItsAcquisition() {
		template.acquire("k", ONE_TRY).release();
		assertThat(events).containsExactly("start k", "acquired k", "end k ACQUIRED attempts=1", "released k");
	}

	@Test
	void aLockThatStayedHeldEndsTimedOutOrSkippedAfterEveryAttempt() {
		LockOptions threeTries = LockOptions.builder()
			.timeout(Duration.ofSeconds(10))
			.retries(2)
			.delay(Duration.ofMillis(1))
			.build();
		try (LockHandle held = template.acquire("k", ONE_TRY)) {
			events.clear();
			assertThatThrownBy(() -> template.acquire("k", threeTries)).isInstanceOf(LockAcquisitionException.class);
			assertThat(template.tryAcquire("k", ONE_TRY)).isEmpty();
		}
		assertThat(events).containsExactly("start k", "failed k", "end k TIMED_OUT attempts=3", "start k", "failed k",
				"end k SKIPPED attempts=1", "released k");
	}

	@Test
	void anInterruptedCallerEndsInterruptedAndKeepsItsFlag() {
		Thread.currentThread().interrupt();
		try {
			assertThatThrownBy(() -> template.acquire("k", ONE_TRY)).isInstanceOf(LockAcquisitionException.class);
		}
		finally {
			assertThat(Thread.interrupted()).isTrue();
		}
		assertThat(events).containsExactly("start k", "end k INTERRUPTED attempts=0");
	}

	@Test
	void aGroupIsOneAcquisitionWithAGrantPerMember() {
		template.acquireAll(List.of("b", "a"), ONE_TRY).close();
		assertThat(events).startsWith("start a,b", "acquired a", "acquired b", "end a,b ACQUIRED attempts=1");
	}

	@Test
	void aStoreErrorEndsTheAcquisitionAfterTheErrorEventAndAnyOtherErrorEndsItToo() {
		LockTemplate down = LockTemplate.builder(failing(new IllegalStateException("connection refused")))
			.listener(new Recording())
			.build();
		LockTemplate broken = LockTemplate.builder(failing(new AssertionError("a bug")))
			.listener(new Recording())
			.build();
		assertThatThrownBy(() -> down.acquire("k", ONE_TRY)).isInstanceOf(LockStoreException.class);
		assertThatThrownBy(() -> broken.tryAcquire("k", ONE_TRY)).isInstanceOf(AssertionError.class);
		assertThat(events).containsExactly("start k", "error k", "end k STORE_ERROR attempts=1", "start k",
				"end k ERROR attempts=1");
		down.close();
		broken.close();
	}

	@Test
	void guardedWorkRunsInsideTheListenersScopeWhichClosesBeforeTheRelease() {
		template.execute("k", ONE_TRY, handle -> events.add("callback"));
		assertThat(template.tryExecute("k", ONE_TRY, handle -> events.add("callback"))).contains(true);
		assertThat(events).containsSubsequence("acquired k", "work open k", "callback", "work closed k",
				"released k", "acquired k", "work open k", "callback", "work closed k", "released k");
	}

	private static LockProvider failing(Throwable failure) {
		return new LockProvider() {
			@Override
			public Optional<Lease> tryAcquire(LockRequest request) {
				if (failure instanceof RuntimeException runtime) {
					throw runtime;
				}
				throw (Error) failure;
			}

			@Override
			public boolean isLocked(String key) {
				return false;
			}

			@Override
			public String name() {
				return "failing";
			}
		};
	}

	private final class Recording implements LockListener {

		private final ThreadLocal<String> started = new ThreadLocal<>();

		@Override
		public void onAcquireStarted(LockAttempt attempt) {
			started.set(String.join(",", attempt.keys()));
			events.add("start " + String.join(",", attempt.keys()));
		}

		@Override
		public void onAcquireEnded(LockAttempt attempt, LockAttempt.Outcome outcome, int attempts, Duration waited) {
			// The end comes on the thread that started, for the same attempt.
			String keys = String.join(",", attempt.keys());
			assertThat(started.get()).isEqualTo(keys);
			started.remove();
			events.add("end " + keys + " " + outcome + " attempts=" + attempts);
		}

		@Override
		public void onAcquired(LockHandle handle) {
			events.add("acquired " + handle.key());
		}

		@Override
		public void onAcquireFailed(LockAttempt attempt, int attempts, Duration waited, boolean skipped) {
			events.add("failed " + String.join(",", attempt.keys()));
		}

		@Override
		public void onAcquireError(LockAttempt attempt, LockStoreException error) {
			events.add("error " + String.join(",", attempt.keys()));
		}

		@Override
		public Scope onWorkStarted(List<LockHandle> handles) {
			events.add("work open " + handles.get(0).key());
			return () -> events.add("work closed " + handles.get(0).key());
		}

		@Override
		public void onReleased(LockHandle handle, Duration heldFor) {
			events.add("released " + handle.key());
		}

	}

}
