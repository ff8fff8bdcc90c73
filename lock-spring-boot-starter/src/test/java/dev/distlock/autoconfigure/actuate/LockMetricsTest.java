package dev.distlock.autoconfigure.actuate;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.distlock.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.core.FailureMode;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockGroup;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockReleaseException;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.OperatorSupport;
import dev.distlock.spring.DistributedLock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The meters after real lock activity on the in-memory store, through the auto-configured template: timers and the
 * figures of what runs now from the observations, counters from the metrics listener.
 */
class LockMetricsTest {

	private static final LockOptions ONE_TRY = LockOptions.builder().timeout(Duration.ofSeconds(10)).build();

	private static final LockOptions PATIENT = LockOptions.builder()
		.timeout(Duration.ofSeconds(10))
		.retries(100_000)
		.maxWait(Duration.ofSeconds(60))
		.build();

	private static final String ACQUIRE = DefaultLockAcquireObservationConvention.NAME;

	private static final String WAITING = ACQUIRE + ".active";

	private static final String HOLD = DefaultLockObservationConvention.NAME;

	private static final String HELD = HOLD + ".active";

	// Wired as Boot wires an application with actuator: the timers come from the observations through Boot's meter
	// handler, the counters from the metrics listener.
	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class, MetricsAutoConfiguration.class,
				CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
				DistributedLockAutoConfiguration.class, DistributedLockActuatorAutoConfiguration.class))
		.withPropertyValues("distributed-lock.provider=in-memory", "distributed-lock.key-prefix=app:");

	@Test
	void acquireTimerCountsEachOutcomeByKeyPrefixAndMode() {
		runner.run(context -> {
			LockTemplate template = context.getBean(LockTemplate.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			try (LockHandle first = template.acquire("orders:1", ONE_TRY);
					LockHandle second = template.acquire("orders:2", ONE_TRY)) {
				assertThat(template.tryAcquire("orders:1", ONE_TRY)).isEmpty();
				assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> template.acquire("orders:1", ONE_TRY));
				assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> template.acquire("orders:2", ONE_TRY));
			}
			LockOptions shared = LockOptions.builder().shared(2).build();
			try (LockHandle a = template.acquire("reports:daily", shared);
					LockHandle b = template.acquire("reports:daily", shared)) {
				assertThat(template.tryAcquire("reports:daily", shared)).isEmpty();
			}
			assertThat(acquires(registry, "orders", "exclusive", "acquired")).isEqualTo(2);
			assertThat(acquires(registry, "orders", "exclusive", "skipped")).isEqualTo(1);
			assertThat(acquires(registry, "orders", "exclusive", "timed-out")).isEqualTo(2);
			assertThat(acquires(registry, "reports", "shared", "acquired")).isEqualTo(2);
			assertThat(acquires(registry, "reports", "shared", "skipped")).isEqualTo(1);
			assertThat(registry.get(ACQUIRE).timers()).hasSize(5);
		});
	}

	@Test
	void storeErrorsAreTheStoreErrorOutcomeOfTheAcquireTimerWithTheirWait() {
		LockProvider down = new LockProvider() {
			@Override
			public Optional<Lease> tryAcquire(LockRequest request) {
				throw new IllegalStateException("connection refused");
			}

			@Override
			public boolean isLocked(String key) {
				throw new IllegalStateException("connection refused");
			}

			@Override
			public String name() {
				return "down";
			}
		};
		runner.withBean(LockProvider.class, () -> down).run(context -> {
			LockTemplate template = context.getBean(LockTemplate.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThatExceptionOfType(LockStoreException.class).isThrownBy(() -> template.acquire("orders:1", ONE_TRY));
			assertThatExceptionOfType(LockStoreException.class)
				.isThrownBy(() -> template.tryAcquire("orders:2", ONE_TRY));
			assertThat(registry.get(ACQUIRE)
				.tags(LockKeyTag.TAG, "orders", "method", "none", "mode", "exclusive", "provider", "down", "outcome",
						"store-error", "error", "LockStoreException")
				.timer()
				.count()).isEqualTo(2);
			assertThat(registry.get(ACQUIRE).timers()).hasSize(1);
			assertThat(registry.find("distlock.acquire.errors").meters()).isEmpty();
			assertThat(registry.get(WAITING).longTaskTimer().activeTasks()).isZero();
		});
	}

	@Test
	void aGroupIsOneAcquisitionHoldingEachMemberAndAFailedGroupIsTaggedByItsFirstKey() {
		runner.run(context -> {
			LockTemplate template = context.getBean(LockTemplate.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			try (LockGroup group = template.acquireAll(List.of("batch:b", "batch:a"), ONE_TRY)) {
				assertThat(template.tryAcquireAll(List.of("batch:a", "batch:c"), ONE_TRY)).isEmpty();
				assertThat(activeHolds(registry, "batch")).isEqualTo(2);
			}
			assertThat(acquires(registry, "batch", "exclusive", "acquired")).isEqualTo(1);
			assertThat(acquires(registry, "batch", "exclusive", "skipped")).isEqualTo(1);
			assertThat(activeHolds(registry, "batch")).isZero();
			assertThat(registry.get(HOLD).tag(LockKeyTag.TAG, "batch").timer().count()).isEqualTo(2);
		});
	}

	@Test
	void heldTimerShowsLocksHeldNowAndNoneAfterRelease() {
		runner.run(context -> {
			LockTemplate template = context.getBean(LockTemplate.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			LockHandle first = template.acquire("orders:1", ONE_TRY);
			LockHandle second = template.acquire("orders:2", ONE_TRY);
			LockHandle report = template.acquire("nightly-report", ONE_TRY);
			assertThat(activeHolds(registry, "orders")).isEqualTo(2);
			assertThat(activeHolds(registry, "none")).isEqualTo(1);
			first.release();
			assertThat(activeHolds(registry, "orders")).isEqualTo(1);
			second.release();
			report.release();
			assertThat(activeHolds(registry, "orders")).isZero();
			assertThat(activeHolds(registry, "none")).isZero();
			assertThat(registry.get(HOLD).tag(LockKeyTag.TAG, "orders").timer().count()).isEqualTo(2);
			assertThat(context.getBean(LockObservationListener.class).openObservations()).isZero();
		});
	}

	@Test
	void forceReleasedLockCountsOneLossAndOneReleaseFailure() {
		runner.run(context -> {
			LockTemplate template = context.getBean(LockTemplate.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			LockHandle handle = template.acquire("orders:9", ONE_TRY);
			assertThat(((OperatorSupport) template.provider()).forceRelease("app:orders:9")).isTrue();
			assertThatExceptionOfType(LockReleaseException.class).isThrownBy(handle::release);
			assertThat(counter(registry, LockMetricsListener.LOST, "orders")).isEqualTo(1);
			assertThat(counter(registry, LockMetricsListener.RELEASE_FAILURES, "orders")).isEqualTo(1);
			assertThat(activeHolds(registry, "orders")).isZero();
			assertThat(registry.get(HOLD).tags(LockKeyTag.TAG, "orders", "error", "LockLostException").timer().count())
				.isEqualTo(1);
			assertThat(context.getBean(LockObservationListener.class).openObservations()).isZero();
		});
	}

	@Test
	void renewalsCounterMatchesEveryWatchdogRenewal() {
		AtomicInteger renewals = new AtomicInteger();
		LockListener counting = new LockListener() {
			@Override
			public void onRenewed(LockHandle handle) {
				renewals.incrementAndGet();
			}
		};
		runner.withBean("countingListener", LockListener.class, () -> counting).run(context -> {
			LockTemplate template = context.getBean(LockTemplate.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			LockOptions renewing = LockOptions.builder().timeout(Duration.ofMillis(300)).autoRenew(true).build();
			try (LockHandle handle = template.acquire("jobs:sync", renewing)) {
				long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
				while (renewals.get() < 2 && System.nanoTime() < deadline) {
					Thread.sleep(20);
				}
			}
			assertThat(renewals.get()).isGreaterThanOrEqualTo(2);
			assertThat(counter(registry, LockMetricsListener.RENEWALS, "jobs")).isEqualTo(renewals.get());
			assertThat(counter(registry, LockMetricsListener.LOST, "jobs")).isZero();
		});
	}

	@Test
	void noTagCarriesARawKey() {
		runner.run(context -> {
			LockTemplate template = context.getBean(LockTemplate.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			for (int id = 0; id < 20; id++) {
				template.execute("orders:" + id, ONE_TRY, handle -> null);
				template.execute("invoice-" + id, ONE_TRY, handle -> null);
				template.execute(Integer.toString(id), ONE_TRY, handle -> null);
				template.execute(":" + id, ONE_TRY, handle -> null);
			}
			assertThat(tagValues(registry, LockKeyTag.TAG)).containsExactlyInAnyOrder("orders", "none");
			assertThat(tagValues(registry, "method")).containsExactly("none");
			assertThat(registry.get(ACQUIRE).timers()).hasSize(2);
			assertThat(acquires(registry, "orders", "exclusive", "acquired")).isEqualTo(20);
			assertThat(acquires(registry, "none", "exclusive", "acquired")).isEqualTo(60);
		});
	}

	@Test
	void annotatedLocksAreTaggedByMethodNeverByKey() {
		runner.withBean(Invoices.class).run(context -> {
			Invoices invoices = context.getBean(Invoices.class);
			LockTemplate template = context.getBean(LockTemplate.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			for (int id = 0; id < 20; id++) {
				assertThat(invoices.settle("inv-" + id)).isEqualTo("settled inv-" + id);
				assertThat(invoices.settleByPrefix(id)).isEqualTo("settled " + id);
			}
			try (LockHandle held = template.acquire("inv-7", ONE_TRY)) {
				assertThat(invoices.settle("inv-7")).isNull();
				assertThat(activeHolds(registry, "none")).isEqualTo(1);
			}
			assertThat(tagValues(registry, LockKeyTag.TAG)).containsExactly("none");
			assertThat(tagValues(registry, "method")).containsExactlyInAnyOrder("Invoices.settle",
					"Invoices.settleByPrefix", "none");
			assertThat(methodAcquires(registry, "Invoices.settle", "acquired")).isEqualTo(20);
			assertThat(methodAcquires(registry, "Invoices.settle", "skipped")).isEqualTo(1);
			assertThat(methodAcquires(registry, "Invoices.settleByPrefix", "acquired")).isEqualTo(20);
			assertThat(registry.get(ACQUIRE).tag("method", "none").timer().count()).isEqualTo(1);
		});
	}

	@Test
	void anAnnotatedLockKeepsItsMethodTagForEventsOnOtherThreads() {
		runner.withBean(Invoices.class).run(context -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			Invoices invoices = context.getBean(Invoices.class);
			assertThat(invoices.renewing("inv-1", () -> registry.find(LockMetricsListener.RENEWALS).counters()
				.stream()
				.mapToDouble(Counter::count)
				.sum() >= 1)).isTrue();
			assertThat(registry.get(LockMetricsListener.RENEWALS).counters()).singleElement()
				.satisfies(counter -> assertThat(counter.getId().getTag("method")).isEqualTo("Invoices.renewing"))
				.satisfies(counter -> assertThat(counter.getId().getTag(LockKeyTag.TAG)).isEqualTo("none"));
			assertThat(registry.get(HELD).tag("method", "Invoices.renewing").longTaskTimer()
				.activeTasks()).isZero();
		});
	}

	@Test
	void aCustomKeyTagReplacesTheDefault() {
		runner.withBean(LockKeyTag.class, () -> key -> key.startsWith("orders") ? "orders" : "other").run(context -> {
			LockTemplate template = context.getBean(LockTemplate.class);
			template.execute("orders-42", ONE_TRY, handle -> null);
			template.execute("misc", ONE_TRY, handle -> null);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(acquires(registry, "orders", "exclusive", "acquired")).isEqualTo(1);
			assertThat(acquires(registry, "other", "exclusive", "acquired")).isEqualTo(1);
		});
	}

	@Test
	void waitingFigureCountsTheCallerWaitingNowAndGoesBackToZeroWhenItIsGranted() throws Exception {
		runner.run(context -> {
			LockTemplate template = context.getBean(LockTemplate.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			ExecutorService executor = Executors.newSingleThreadExecutor();
			try {
				Future<Long> waiter;
				try (LockHandle held = template.acquire("orders:1", ONE_TRY)) {
					assertThat(waiting(registry, "orders")).isZero();
					waiter = executor.submit(() -> {
						try (LockHandle granted = template.acquire("orders:1", PATIENT)) {
							return granted.fencingToken();
						}
					});
					awaitTrue(() -> waiting(registry, "orders") == 1);
					assertThat(waiting(registry, "orders")).isEqualTo(1);
					assertThat(waiter).isNotDone();
				}
				assertThat(waiter.get(30, TimeUnit.SECONDS)).isPositive();
				// The figure drops before acquire returns: no polling here.
				assertThat(waiting(registry, "orders")).isZero();
				assertThat(acquires(registry, "orders", "exclusive", "acquired")).isEqualTo(2);
			}
			finally {
				executor.shutdownNow();
			}
		});
	}

	@Test
	void anInterruptedWaitEndsWithTheInterruptedOutcomeAndLeavesNobodyWaiting() throws Exception {
		runner.run(context -> {
			LockTemplate template = context.getBean(LockTemplate.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			ExecutorService executor = Executors.newSingleThreadExecutor();
			try (LockHandle held = template.acquire("orders:1", ONE_TRY)) {
				Future<?> waiter = executor.submit(() -> template.acquire("orders:1", PATIENT));
				awaitTrue(() -> waiting(registry, "orders") == 1);
				waiter.cancel(true);
				executor.shutdown();
				assertThat(executor.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
				assertThat(waiting(registry, "orders")).isZero();
				assertThat(acquires(registry, "orders", "exclusive", "interrupted")).isEqualTo(1);
			}
			finally {
				executor.shutdownNow();
			}
		});
	}

	@Test
	void lostCounterCountsALockTheWatchdogFindsTakenAway() {
		runner.run(context -> {
			LockTemplate template = context.getBean(LockTemplate.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			LockOptions renewing = LockOptions.builder().timeout(Duration.ofMillis(300)).autoRenew(true).build();
			LockHandle handle = template.acquire("jobs:sync", renewing);
			assertThat(counter(registry, LockMetricsListener.LOST, "jobs")).isZero();
			assertThat(((OperatorSupport) template.provider()).forceRelease("app:jobs:sync")).isTrue();
			awaitTrue(() -> counter(registry, LockMetricsListener.LOST, "jobs") >= 1);
			assertThat(handle.isHeld()).isFalse();
			assertThat(counter(registry, LockMetricsListener.LOST, "jobs")).isEqualTo(1);
			assertThat(activeHolds(registry, "jobs")).isZero();
			try {
				handle.release();
			}
			catch (LockReleaseException expected) {
				// a lost lock may report its loss again on release; the counter must not
			}
			assertThat(counter(registry, LockMetricsListener.LOST, "jobs")).isEqualTo(1);
		});
	}

	private static long waiting(MeterRegistry registry, String keyPrefix) {
		return registry.find(WAITING).tag(LockKeyTag.TAG, keyPrefix).longTaskTimers().stream()
			.mapToLong(timer -> timer.activeTasks())
			.sum();
	}

	// Generous: the machine is shared; the bound only stops a hung test.
	private static void awaitTrue(BooleanSupplier condition) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
			Thread.sleep(10);
		}
	}

	private static Set<String> tagValues(MeterRegistry registry, String tag) {
		return registry.getMeters()
			.stream()
			.map(Meter::getId)
			.filter(id -> id.getName().startsWith("distlock."))
			.map(id -> id.getTag(tag))
			.collect(Collectors.toSet());
	}

	private static long methodAcquires(MeterRegistry registry, String method, String outcome) {
		return registry.get(ACQUIRE)
			.tags(LockKeyTag.TAG, "none", "method", method, "mode", "exclusive", "outcome", outcome, "provider",
					"in-memory")
			.timer()
			.count();
	}

	private static long acquires(MeterRegistry registry, String keyPrefix, String mode, String outcome) {
		return registry.get(ACQUIRE)
			.tags(LockKeyTag.TAG, keyPrefix, "mode", mode, "outcome", outcome, "provider", "in-memory")
			.timer()
			.count();
	}

	private static int activeHolds(MeterRegistry registry, String keyPrefix) {
		return registry.get(HELD).tag(LockKeyTag.TAG, keyPrefix).longTaskTimers().stream()
			.mapToInt(timer -> timer.activeTasks())
			.sum();
	}

	private static double counter(MeterRegistry registry, String name, String keyPrefix) {
		return registry.find(name).tag(LockKeyTag.TAG, keyPrefix).counters().stream()
			.mapToDouble(counter -> counter.count())
			.sum();
	}

	/** Annotated locks whose keys are all data: their meters must name the method, not the key. */
	static class Invoices {

		@DistributedLock(key = "#id", onFailure = FailureMode.SKIP)
		public @Nullable String settle(String id) {
			return "settled " + id;
		}

		@DistributedLock(key = "'invoice-' + #id")
		public String settleByPrefix(int id) {
			return "settled " + id;
		}

		@DistributedLock(key = "#id", timeoutString = "300ms", autoRenew = true)
		public boolean renewing(String id, BooleanSupplier renewed) throws InterruptedException {
			long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
			while (!renewed.getAsBoolean() && System.nanoTime() < deadline) {
				Thread.sleep(20);
			}
			return renewed.getAsBoolean();
		}

	}

}
