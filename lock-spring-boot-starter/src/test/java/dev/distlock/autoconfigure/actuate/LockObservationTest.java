package dev.distlock.autoconfigure.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.distlock.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockGroup;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockLostException;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockReleaseException;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.OperatorSupport;
import dev.distlock.spring.DistributedLock;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The acquire and held-lock observations, recorded in a {@link TestObservationRegistry} after real lock activity.
 */
class LockObservationTest {

	private static final LockOptions ONE_TRY = LockOptions.builder().timeout(Duration.ofSeconds(10)).build();

	private final TestObservationRegistry observations = TestObservationRegistry.create();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class,
				DistributedLockActuatorAutoConfiguration.class))
		.withPropertyValues("distributed-lock.provider=in-memory", "distributed-lock.key-prefix=app:")
		.withBean(ObservationRegistry.class, () -> observations);

	@Test
	void eachHoldIsOneStoppedObservationWithLowCardinalityTagsAndTheKeyAsHighCardinality() {
		runner.run(context -> {
			LockTemplate template = context.getBean(LockTemplate.class);
			LockHandle handle = template.acquire("orders:42", ONE_TRY);
			long token = handle.fencingToken();
			assertThat(observations).hasNumberOfObservationsWithNameEqualTo("distlock.lock", 1)
				.hasObservationWithNameEqualTo("distlock.lock")
				.that()
				.hasBeenStarted()
				.isNotStopped();
			handle.release();
			assertThat(observations).hasObservationWithNameEqualTo("distlock.lock")
				.that()
				.hasBeenStopped()
				.hasContextualNameEqualTo("lock orders")
				.hasLowCardinalityKeyValue("provider", "in-memory")
				.hasLowCardinalityKeyValue("mode", "exclusive")
				.hasLowCardinalityKeyValue("key.prefix", "orders")
				.hasLowCardinalityKeyValue("method", "none")
				.hasHighCardinalityKeyValue("distlock.key", "app:orders:42")
				.hasHighCardinalityKeyValue("distlock.fencing.token", Long.toString(token))
				.doesNotHaveError();
			assertThat(context.getBean(LockObservationListener.class).openObservations()).isZero();
		});
	}

	@Test
	void anAnnotatedLockIsObservedUnderItsMethodWithTheKeyOnlyAsHighCardinality() {
		runner.withBean(Tickets.class).run(context -> {
			context.getBean(Tickets.class).book("t-9");
			assertThat(observations).hasObservationWithNameEqualTo("distlock.lock")
				.that()
				.hasBeenStopped()
				.hasContextualNameEqualTo("lock Tickets.book")
				.hasLowCardinalityKeyValue("key.prefix", "none")
				.hasLowCardinalityKeyValue("method", "Tickets.book")
				.hasHighCardinalityKeyValue("distlock.key", "app:t-9");
		});
	}

	@Test
	void aLostLockEndsItsObservationWithTheLossAsError() {
		runner.run(context -> {
			LockTemplate template = context.getBean(LockTemplate.class);
			LockHandle handle = template.acquire("orders:7", ONE_TRY);
			((OperatorSupport) template.provider()).forceRelease("app:orders:7");
			assertThatExceptionOfType(LockReleaseException.class).isThrownBy(handle::release);
			assertThat(observations).hasNumberOfObservationsWithNameEqualTo("distlock.lock", 1)
				.hasObservationWithNameEqualTo("distlock.lock")
				.that()
				.hasBeenStopped()
				.assertThatError()
				.isInstanceOf(LockLostException.class);
			assertThat(context.getBean(LockObservationListener.class).openObservations()).isZero();
		});
	}

	@Test
	void aConventionBeanRenamesTheObservation() {
		ObservationConvention<LockObservationContext> custom = new DefaultLockObservationConvention() {
			@Override
			public String getName() {
				return "app.lock";
			}

			@Override
			public KeyValues getHighCardinalityKeyValues(LockObservationContext context) {
				return KeyValues.empty();
			}
		};
		runner.withBean(ObservationConvention.class, () -> custom).run(context -> {
			context.getBean(LockTemplate.class).execute("orders:1", ONE_TRY, handle -> null);
			assertThat(observations).hasObservationWithNameEqualTo("app.lock")
				.that()
				.hasLowCardinalityKeyValue("key.prefix", "orders")
				.doesNotHaveHighCardinalityKeyValueWithKey("distlock.key");
		});
	}

	@Test
	void theCurrentObservationBecomesTheParent() {
		runner.run(context -> {
			LockTemplate template = context.getBean(LockTemplate.class);
			Observation request = Observation.start("work", observations);
			try (Observation.Scope scope = request.openScope()) {
				template.execute("orders:1", ONE_TRY, handle -> null);
			}
			request.stop();
			assertThat(observations).hasObservationWithNameEqualTo("distlock.lock")
				.that()
				.hasParentObservationEqualTo(request);
		});
	}

	@Test
	void eachAcquisitionIsOneStoppedObservationWithItsOutcomeAttemptsAndKey() {
		runner.run(context -> {
			LockTemplate template = context.getBean(LockTemplate.class);
			template.execute("orders:42", ONE_TRY, handle -> null);
			assertThat(observations).hasNumberOfObservationsWithNameEqualTo("distlock.acquire", 1)
				.hasObservationWithNameEqualTo("distlock.acquire")
				.that()
				.hasBeenStopped()
				.hasContextualNameEqualTo("acquire orders")
				.hasLowCardinalityKeyValue("provider", "in-memory")
				.hasLowCardinalityKeyValue("mode", "exclusive")
				.hasLowCardinalityKeyValue("key.prefix", "orders")
				.hasLowCardinalityKeyValue("method", "none")
				.hasLowCardinalityKeyValue("outcome", "acquired")
				.hasHighCardinalityKeyValue("distlock.key", "app:orders:42")
				.hasHighCardinalityKeyValue("distlock.attempts", "1")
				.doesNotHaveError();
			assertThat(context.getBean(LockObservationListener.class).acquiringOnThisThread()).isFalse();
		});
	}

	@Test
	void failedAcquisitionsAreObservedWithTheirOutcomeAndEveryAttempt() {
		LockOptions threeTries = LockOptions.builder()
			.timeout(Duration.ofSeconds(10))
			.retries(2)
			.delay(Duration.ofMillis(1))
			.build();
		runner.run(context -> {
			LockTemplate template = context.getBean(LockTemplate.class);
			try (LockHandle held = template.acquire("orders:1", ONE_TRY)) {
				assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> template.acquire("orders:1", threeTries));
				assertThat(template.tryAcquire("orders:1", ONE_TRY)).isEmpty();
			}
			assertThat(outcomes()).containsExactly("acquired", "timed-out", "skipped");
			assertThat(acquisition("timed-out").getHighCardinalityKeyValue("distlock.attempts").getValue())
				.isEqualTo("3");
			// Two retries after a 1 ms delay each: the recorded wait covers at least those.
			assertThat(((LockAcquireObservationContext) acquisition("timed-out")).getWaited())
				.isGreaterThanOrEqualTo(Duration.ofMillis(2));
			assertThat(acquisition("skipped").getHighCardinalityKeyValue("distlock.attempts").getValue())
				.isEqualTo("1");
			assertThat(observations).hasNumberOfObservationsWithNameEqualTo("distlock.lock", 1);
			assertThat(context.getBean(LockObservationListener.class).acquiringOnThisThread()).isFalse();
		});
	}

	@Test
	void aStoreErrorEndsTheAcquisitionWithTheErrorAndTheStoreErrorOutcome() {
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
			assertThatExceptionOfType(LockStoreException.class).isThrownBy(() -> template.acquire("orders:1", ONE_TRY));
			assertThat(observations).hasObservationWithNameEqualTo("distlock.acquire")
				.that()
				.hasBeenStopped()
				.hasLowCardinalityKeyValue("outcome", "store-error")
				.hasLowCardinalityKeyValue("provider", "down")
				.assertThatError()
				.isInstanceOf(LockStoreException.class);
			assertThat(observations).hasNumberOfObservationsWithNameEqualTo("distlock.lock", 0);
		});
	}

	@Test
	void anInterruptedWaitStopsItsObservationOnceWithTheInterruptedOutcome() {
		runner.run(context -> {
			LockTemplate template = context.getBean(LockTemplate.class);
			try (LockHandle held = template.acquire("orders:1", ONE_TRY)) {
				Thread.currentThread().interrupt();
				try {
					assertThatExceptionOfType(LockAcquisitionException.class)
						.isThrownBy(() -> template.acquire("orders:1", ONE_TRY));
				}
				finally {
					assertThat(Thread.interrupted()).isTrue();
				}
			}
			assertThat(outcomes()).containsExactly("acquired", "interrupted");
			assertThat(observations).hasNumberOfObservationsWithNameEqualTo("distlock.acquire", 2);
			assertThat(context.getBean(LockObservationListener.class).acquiringOnThisThread()).isFalse();
		});
	}

	@Test
	void acquireAndHoldAreBothChildrenOfTheCallerAndTheHoldIsCurrentInTheBody() {
		runner.withBean(Tickets.class).run(context -> {
			Tickets tickets = context.getBean(Tickets.class);
			Observation request = Observation.start("request", observations);
			try (Observation.Scope scope = request.openScope()) {
				tickets.book("t-1");
			}
			request.stop();
			Observation.Context acquire = observed("distlock.acquire");
			Observation.Context hold = observed("distlock.lock");
			assertThat(acquire.getParentObservation()).isSameAs(request);
			assertThat(hold.getParentObservation()).isSameAs(request);
			Observation inBody = tickets.currentInBody();
			assertThat(inBody).isNotNull();
			assertThat(inBody.getContext()).isSameAs(hold);
			assertThat(observations.getCurrentObservation()).isNull();
		});
	}

	@Test
	void withoutACallerTheHoldHasNoParentNotTheAcquisition() {
		runner.run(context -> {
			context.getBean(LockTemplate.class).execute("orders:1", ONE_TRY, handle -> null);
			assertThat(observed("distlock.acquire").getParentObservation()).isNull();
			assertThat(observed("distlock.lock").getParentObservation()).isNull();
		});
	}

	@Test
	void aGroupIsOneAcquisitionAndItsFirstMembersHoldIsCurrentInTheCallback() {
		runner.run(context -> {
			LockTemplate template = context.getBean(LockTemplate.class);
			try (LockGroup group = template.acquireAll(List.of("batch:b", "batch:a"), ONE_TRY);
					LockListener.Scope work = template.openWorkScope(group.handles())) {
				Observation current = observations.getCurrentObservation();
				assertThat(current).isNotNull();
				assertThat(((LockObservationContext) current.getContext()).getHandle().key()).isEqualTo("app:batch:a");
			}
			assertThat(observations).hasNumberOfObservationsWithNameEqualTo("distlock.acquire", 1)
				.hasNumberOfObservationsWithNameEqualTo("distlock.lock", 2);
			assertThat(observed("distlock.acquire").getHighCardinalityKeyValue("distlock.key").getValue())
				.isEqualTo("app:batch:a,app:batch:b");
			assertThat(observations.getCurrentObservation()).isNull();
		});
	}

	@Test
	void anAcquireConventionBeanRenamesTheAcquisitionOnly() {
		ObservationConvention<LockAcquireObservationContext> custom = new DefaultLockAcquireObservationConvention() {
			@Override
			public String getName() {
				return "app.lock.wait";
			}
		};
		runner.withBean(ObservationConvention.class, () -> custom).run(context -> {
			context.getBean(LockTemplate.class).execute("orders:1", ONE_TRY, handle -> null);
			assertThat(observations).hasNumberOfObservationsWithNameEqualTo("app.lock.wait", 1)
				.hasNumberOfObservationsWithNameEqualTo("distlock.lock", 1)
				.hasNumberOfObservationsWithNameEqualTo("distlock.acquire", 0);
		});
	}

	// Every context the registry handled, in start order.
	private List<Observation.Context> contexts() {
		List<Observation.Context> seen = new ArrayList<>();
		assertThat(observations).hasHandledContextsThatSatisfy(seen::addAll);
		return seen;
	}

	private List<String> outcomes() {
		return contexts().stream()
			.filter(context -> context instanceof LockAcquireObservationContext)
			.map(context -> context.getLowCardinalityKeyValue("outcome").getValue())
			.toList();
	}

	private Observation.Context acquisition(String outcome) {
		return contexts().stream()
			.filter(context -> context instanceof LockAcquireObservationContext)
			.filter(context -> outcome.equals(context.getLowCardinalityKeyValue("outcome").getValue()))
			.findFirst()
			.orElseThrow();
	}

	private Observation.Context observed(String name) {
		List<Observation.Context> named = contexts().stream()
			.filter(context -> name.equals(context.getName()))
			.toList();
		assertThat(named).hasSize(1);
		return named.get(0);
	}

	/** A lock whose key is an argument; it notes the observation current in its body. */
	static class Tickets {

		private @Nullable Observation currentInBody;

		@Autowired
		private @Nullable ObservationRegistry observations;

		@DistributedLock(key = "#id")
		public void book(String id) {
			if (observations != null) {
				currentInBody = observations.getCurrentObservation();
			}
		}

		// A method, not the field: the bean is a proxy whose own fields stay empty.
		public @Nullable Observation currentInBody() {
			return currentInBody;
		}

	}

}
