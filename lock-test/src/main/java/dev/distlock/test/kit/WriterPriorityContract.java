package dev.distlock.test.kit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.WaitingLockProvider;

import static dev.distlock.test.kit.LockProviderContractTest.LONG;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Shared locks cannot starve a writer: while an exclusive request waits, new shared holders are refused. Part of
 * {@link LockProviderContractTest}; skipped on a provider without {@link WaitingLockProvider}, which brings writer
 * priority.
 */
public interface WriterPriorityContract {

	/** The template of the test, on the kit's prefix. */
	LockTemplate kitTemplate();

	/** The provider of the test. */
	LockProvider kitProvider();

	/** Skips the test, saying why, unless the provider waits, and so gives waiting writers priority. */
	default void assumeWriterPriority() {
		Assumptions.assumeTrue(kitProvider() instanceof WaitingLockProvider, () -> "provider '" + kitProvider().name()
				+ "' does not implement WaitingLockProvider (waiting exclusive requests keep new shared holders out)");
	}

	private static LockOptions waitingShared(Duration maxWait) {
		return LockOptions.builder().timeout(LONG).shared(3).delay(Duration.ofMillis(5)).waitUpTo(maxWait).build();
	}

	@Test
	default void aWaitingWriterGetsInAheadOfAStreamOfOverlappingReaders() throws Exception {
		assumeWriterPriority();
		Duration hold = Duration.ofMillis(300);
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger mostInside = new AtomicInteger();
		AtomicBoolean stop = new AtomicBoolean();
		ExecutorService readers = Executors.newFixedThreadPool(3);
		List<Future<Integer>> runs = new ArrayList<>();
		try {
			for (int i = 0; i < 3; i++) {
				long stagger = hold.toMillis() * i / 3;
				runs.add(readers.submit(() -> {
					Thread.sleep(stagger); // overlapping holds: some reader is always in
					int sections = 0;
					while (!stop.get()) {
						try (LockHandle reader = kitTemplate().acquire("rw", waitingShared(Duration.ofSeconds(20)))) {
							mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
							Thread.sleep(hold.toMillis());
							inside.decrementAndGet();
							sections++;
						}
					}
					return sections;
				}));
			}
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
			while (mostInside.get() < 2 && System.nanoTime() < deadline) {
				Thread.sleep(10);
			}
			assertThat(mostInside.get()).as("readers overlap before the writer comes").isGreaterThanOrEqualTo(2);

			LockHandle writer = kitTemplate().acquire("rw",
					LockOptions.builder().timeout(LONG).delay(Duration.ofMillis(5)).waitUpTo(Duration.ofSeconds(5))
						.build());
			int readersAtGrant = inside.get();
			Duration waited = writer.waited();
			writer.release();
			stop.set(true);
			for (Future<Integer> run : runs) {
				assertThat(run.get(30, TimeUnit.SECONDS)).isPositive();
			}
			assertThat(readersAtGrant).isZero();
			// About one reader hold (the readers already in leave); five is the generous bound for a loaded machine,
			// far below the writer's 5 s wait.
			assertThat(waited).isLessThan(hold.multipliedBy(5));
		}
		finally {
			stop.set(true);
			readers.shutdownNow();
		}
	}

	@Test
	default void aWriterThatGaveUpOrNeverWaitedKeepsNoReaderOut() {
		assumeWriterPriority();
		LockOptions shared = LockOptions.builder().timeout(LONG).shared(5).build();
		LockHandle reader = kitTemplate().acquire("rw", shared);
		// A plain attempt does not wait, so it leaves no mark.
		assertThat(kitTemplate().tryAcquire("rw", LockOptions.builder().timeout(LONG).build())).isEmpty();
		assertThat(kitTemplate().tryAcquire("rw", shared)).isPresent();
		// A waiting writer whose wait ran out withdraws its mark when it gives up.
		assertThat(kitTemplate().tryAcquire("rw", LockOptions.builder().timeout(LONG).delay(Duration.ofMillis(20))
			.waitUpTo(Duration.ofMillis(300)).build())).isEmpty();
		assertThat(kitTemplate().tryAcquire("rw", shared)).isPresent();
		assertThat(reader.isHeld()).isTrue();
	}

}
