package dev.distlock.readme;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;

import dev.distlock.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.core.LockAttempt;
import dev.distlock.core.FailureMode;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockMode;
import dev.distlock.core.LockOperations;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.memory.InMemoryLockProvider;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.StatusQuery;
import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.LockContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The README's examples, with the classes' bodies and annotations exactly as printed: they compile, the context
 * starts, and they behave as the README says.
 */
class ReadmeExamplesTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class));

	@Test
	void seatServiceReservesEachSeatOnceWhateverTheRace() {
		runner.withUserConfiguration(SeatService.class).run(context -> {
			SeatService seats = context.getBean(SeatService.class);
			// At most 4 callers, so that even one losing every race stays within the example's 5 retries.
			List<SeatService.Reservation> reservations = inParallel(4,
					customer -> seats.reserve("show-1", "A7", "customer-" + customer));
			assertThat(reservations).hasSize(4).containsOnly(reservations.get(0));
			SeatService.Reservation other = seats.reserve("show-1", "A8", "customer-9");
			assertThat(other.customer()).isEqualTo("customer-9");
			assertThat(other.fencingToken()).isGreaterThan(reservations.get(0).fencingToken());
		});
	}

	@Test
	void payoutsAddUpExactlyAndFenceEachWrite() {
		runner.withUserConfiguration(Payouts.class).run(context -> {
			Payouts payouts = context.getBean(Payouts.class);
			inParallel(4, payout -> payouts.pay("acct-1", 10));
			assertThat(payouts.pay("acct-1", 1)).isEqualTo(41);
			assertThat(payouts.pay("acct-2", 5)).isEqualTo(5);
		});
	}

	@Test
	void nightlyReportStartsRunsOnceThenSkipsWhileTheMinimumHoldLasts() {
		InMemoryLockProvider store = new InMemoryLockProvider();
		AtomicInteger skips = new AtomicInteger();
		runner.withUserConfiguration(Scheduling.class, NightlyReport.class)
			.withBean(LockProvider.class, () -> store)
			.withBean(LockListener.class, () -> new LockListener() {
				@Override
				public void onAcquireFailed(LockAttempt attempt, int attempts, Duration waited, boolean skipped) {
					if (skipped) {
						skips.incrementAndGet();
					}
				}
			})
			.run(context -> {
				assertThat(context).hasNotFailed();
				NightlyReport report = context.getBean(NightlyReport.class);
				LockTemplate template = context.getBean(LockTemplate.class);
				// fixedRate fires at once on startup; the next firing is a minute away.
				await().atMost(10, TimeUnit.SECONDS).until(() -> report.runs() == 1);
				assertThat(new LockOperations(template).heldLocks()).isEmpty();
				assertThat(template.isLocked("nightly-report")).isTrue();
				// The lease was cut from 60 s to what is left of the 50 s minimum hold, not kept whole.
				assertThat(new LockOperations(template).status(StatusQuery.held())).singleElement()
					.extracting(LockInfo::remaining)
					.satisfies(remaining -> assertThat(remaining).isPositive()
						.isLessThanOrEqualTo(Duration.ofSeconds(50)));
				// Another instance firing now skips, and so does this one.
				try (LockTemplate otherInstance = new LockTemplate(store)) {
					assertThat(otherInstance.tryAcquire("nightly-report")).isEmpty();
				}
				report.report();
				assertThat(report.runs()).isEqualTo(1);
				assertThat(skips).hasValue(1);
			});
	}

	private static <T> List<T> inParallel(int calls, CallNumber<T> call) throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(calls);
		try {
			List<Future<T>> futures = new ArrayList<>();
			for (int i = 0; i < calls; i++) {
				int number = i;
				futures.add(pool.submit(() -> call.run(number)));
			}
			List<T> results = new ArrayList<>();
			for (Future<T> future : futures) {
				results.add(future.get(30, TimeUnit.SECONDS));
			}
			return results;
		}
		finally {
			pool.shutdownNow();
		}
	}

	@FunctionalInterface
	interface CallNumber<T> {

		T run(int number) throws Exception;

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class Scheduling {

	}

	// From "30-second example", as printed.
	@Service
	public static class SeatService {

		private final Map<String, Reservation> reservations = new ConcurrentHashMap<>(); // stands in for your database

		// One seat is reserved by one caller at a time, across every instance; other seats go ahead in parallel.
		// Add @Transactional and the lock is taken before the transaction begins and released after it commits.
		@DistributedLock(key = "'seat:' + #showId + ':' + #seat", timeoutString = "${locks.seat:30s}", retries = 5,
				delayString = "100ms")
		public Reservation reserve(String showId, String seat, String customer) {
			long token = LockContext.current().fencingToken(); // pass it to anything that can reject stale writers
			return reservations.computeIfAbsent(showId + ":" + seat,
					key -> new Reservation(showId, seat, customer, token));
		}

		public record Reservation(String showId, String seat, String customer, long fencingToken) {
		}

	}

	// From "30-second example", as printed.
	@Service
	public static class Payouts {

		private final LockTemplate locks;

		private final Map<String, Entry> ledger = new ConcurrentHashMap<>(); // stands in for your ledger table

		public Payouts(LockTemplate locks) {
			this.locks = locks;
		}

		public long pay(String accountId, long cents) {
			try (LockHandle lock = locks.acquire("account:" + accountId, LockOptions.builder().retries(5).build())) {
				long token = lock.fencingToken();
				// The ledger refuses a writer older than the last one it accepted: that writer's lock expired meanwhile.
				return ledger.compute(accountId, (id, last) -> {
					if (last != null && token < last.fencingToken()) {
						throw new IllegalStateException("Stale fencing token " + token + " for account " + id);
					}
					return new Entry(last != null ? last.total() + cents : cents, token);
				}).total();
			}
		}

		record Entry(long total, long fencingToken) {
		}

	}

	// The annotations from "The annotation", as printed; the body counts runs.
	@Component
	public static class NightlyReport {

		private final AtomicInteger runs = new AtomicInteger();

		@Scheduled(fixedRate = 60_000)
		@DistributedLock(key = "'nightly-report'", onFailure = FailureMode.SKIP, timeoutString = "60s",
				holdAtLeastString = "50s")
		public void report() {
			runs.incrementAndGet();
		}

		public int runs() {
			return runs.get();
		}

	}

}
