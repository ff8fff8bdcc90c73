package dev.distlock.spring;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.distlock.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.memory.InMemoryLockProvider;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.StoreClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A period method counts periods on the store's clock, read once per call, never on the application's: here the
 * store's clock runs about an hour ahead of the JVM's. The lock lasts to the period's end, so a later call in the same
 * period is skipped; a run longer than its period ends quietly and does not hold the next period back.
 */
class PeriodStoreClockTest {

	private final ShiftedClockStore store = new ShiftedClockStore();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class))
		.withBean(LockProvider.class, () -> store)
		.withBean(Jobs.class);

	@Test
	void theKeyCarriesThePeriodOfTheStoresClockAndTheLockLastsToThatPeriodsEnd() {
		// The store's clock reads 10 s into a minute an hour or so ahead of the JVM's, and moves on from there.
		Instant storeNow = Instant.now().truncatedTo(ChronoUnit.MINUTES).plus(Duration.ofHours(1)).plusSeconds(10);
		long storePeriod = Math.floorDiv(storeNow.toEpochMilli(), 60_000);
		runner.run(context -> {
			Jobs jobs = context.getBean(Jobs.class);
			LockTemplate locks = context.getBean(LockTemplate.class);
			store.setTime(storeNow);
			jobs.everyMinute();
			assertThat(jobs.ran()).hasSize(1);
			Ran first = jobs.ran().get(0);
			assertThat(first.key()).isEqualTo("minutely@" + storePeriod);
			assertThat(storePeriod).isNotEqualTo(Math.floorDiv(System.currentTimeMillis(), 60_000));
			// The lease runs the 50 s to the end of the store's minute and a tenth of a period (6 s) beyond.
			assertThat(first.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(56))
				.isGreaterThan(Duration.ofSeconds(40));
			assertThat(store.reads).hasValue(1);
			// The method returned, yet the period's lock stays: a later call in the same period is skipped.
			assertThat(locks.isLocked("minutely@" + storePeriod)).isTrue();
			jobs.everyMinute();
			assertThat(jobs.ran()).hasSize(1);
			assertThat(store.reads).hasValue(2);
			// The store's clock reaches the next minute: the next call runs, under that minute's key.
			store.setTime(storeNow.plusSeconds(60));
			jobs.everyMinute();
			assertThat(jobs.ran()).extracting(Ran::key).containsExactly("minutely@" + storePeriod,
					"minutely@" + (storePeriod + 1));
			assertThat(store.reads).hasValue(3);
		});
	}

	@Test
	void aRunLongerThanItsPeriodEndsQuietlyAndTheNextPeriodRunsMeanwhile() {
		// 100 ms before the end of a one-second period: the lease is those 100 ms and a tenth of the period.
		long period = Math.floorDiv(System.currentTimeMillis(), 1_000) + 7_200;
		Instant storeNow = Instant.ofEpochMilli((period + 1) * 1_000 - 100);
		runner.run(context -> {
			Jobs jobs = context.getBean(Jobs.class);
			jobs.beforeNextRun(() -> {
				// Outlive the lease; meanwhile the store's clock moves into the next period, where another run starts.
				LockHandle handle = LockContext.current();
				await().atMost(10, TimeUnit.SECONDS).until(() -> !handle.isHeld());
				store.setTime(storeNow.plusMillis(200));
				CompletableFuture.runAsync(jobs::everySecond).join();
			});
			store.setTime(storeNow);
			jobs.everySecond();
			assertThat(jobs.ran()).extracting(Ran::key).containsExactly("secondly@" + (period + 1),
					"secondly@" + period);
		});
	}

	/**
	 * The jobs: their bodies record the key they run under and the lease left. The test reaches their state through
	 * methods, as the bean is a proxy.
	 */
	static class Jobs {

		private final List<Ran> ran = new CopyOnWriteArrayList<>();

		private volatile Runnable slowRun = () -> {
		};

		public List<Ran> ran() {
			return ran;
		}

		public void beforeNextRun(Runnable body) {
			slowRun = body;
		}

		@DistributedLock(key = "'minutely'", period = "1m")
		public void everyMinute() {
			LockHandle handle = LockContext.current();
			ran.add(new Ran(handle.key(), handle.remaining()));
		}

		@DistributedLock(key = "'secondly'", period = "1s")
		public void everySecond() {
			LockHandle handle = LockContext.current();
			Runnable body = slowRun;
			slowRun = () -> {
			};
			body.run();
			ran.add(new Ran(handle.key(), handle.remaining()));
		}

	}

	/** A job run: its key and the lease it had left at the start. */
	record Ran(String key, Duration remaining) {
	}

	/**
	 * The in-memory store behind a clock set by the test, which moves on at the JVM's pace from the time set; it
	 * counts its reads.
	 */
	static final class ShiftedClockStore implements LockProvider, StoreClock {

		private final InMemoryLockProvider store = new InMemoryLockProvider();

		private final AtomicReference<Duration> offset = new AtomicReference<>(Duration.ZERO);

		final AtomicInteger reads = new AtomicInteger();

		void setTime(Instant time) {
			offset.set(Duration.between(Instant.now(), time));
		}

		@Override
		public Instant storeTime() {
			reads.incrementAndGet();
			return Instant.now().plus(offset.get());
		}

		@Override
		public Optional<Lease> tryAcquire(LockRequest request) {
			return store.tryAcquire(request);
		}

		@Override
		public boolean isLocked(String key) {
			return store.isLocked(key);
		}

	}

}
