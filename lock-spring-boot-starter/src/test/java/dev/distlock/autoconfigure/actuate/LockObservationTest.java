package dev.distlock.autoconfigure.actuate;

import java.time.Duration;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.distlock.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockLostException;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockReleaseException;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.OperatorSupport;
import dev.distlock.spring.DistributedLock;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The held-lock observation, recorded in a {@link TestObservationRegistry} after real lock activity.
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

	/** A lock whose key is an argument. */
	static class Tickets {

		@DistributedLock(key = "#id")
		public void book(String id) {
		}

	}

}
