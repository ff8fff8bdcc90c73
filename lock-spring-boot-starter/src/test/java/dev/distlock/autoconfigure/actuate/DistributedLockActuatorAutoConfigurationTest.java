package dev.distlock.autoconfigure.actuate;

import java.util.Arrays;
import java.util.function.Predicate;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.distlock.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.core.InvalidLockOptionException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockOperations;
import dev.distlock.core.LockTemplate;

import static org.assertj.core.api.Assertions.assertThat;

class DistributedLockActuatorAutoConfigurationTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class,
				DistributedLockActuatorAutoConfiguration.class))
		.withPropertyValues("distributed-lock.provider=in-memory", "management.endpoints.web.exposure.include=locks");

	private final ApplicationContextRunner withRegistries = runner.withBean(SimpleMeterRegistry.class)
		.withBean(ObservationRegistry.class, ObservationRegistry::create);

	// Imported by name, as a real application imports auto-configurations, so their classes are read from bytes and a
	// hidden jar's annotations are unreadable, just as when the jar is absent.
	private final ApplicationContextRunner asImported = new ApplicationContextRunner()
		.withUserConfiguration(ImportedByName.class)
		.withPropertyValues("distributed-lock.provider=in-memory", "management.endpoints.web.exposure.include=locks")
		.withBean(ObservationRegistry.class, ObservationRegistry::create)
		.withBean(MeterRegistry.class, SimpleMeterRegistry::new);

	@Test
	void everyPartAppearsWithActuatorAndMicrometer() {
		withRegistries.run(context -> assertThat(context).hasNotFailed()
			.hasSingleBean(LocksEndpoint.class)
			.doesNotHaveBean(ForceReleaseLocksEndpoint.class)
			.hasSingleBean(LocksHealthIndicator.class)
			.hasBean("locksHealthIndicator")
			.hasSingleBean(LockMetricsListener.class)
			.hasSingleBean(LockObservationListener.class)
			.hasSingleBean(LockKeyTag.class));
	}

	@Test
	void forceReleaseIsOffByDefaultAndOnlyPresentWhenEnabled() {
		withRegistries.run(context -> assertThat(context.getBean(LocksEndpoint.class))
			.isNotInstanceOf(ForceReleaseLocksEndpoint.class));
		withRegistries.withPropertyValues("distributed-lock.actuator.force-release-enabled=true")
			.run(context -> assertThat(context).hasSingleBean(LocksEndpoint.class)
				.hasSingleBean(ForceReleaseLocksEndpoint.class));
	}

	@Test
	void endpointBacksOffWhenNotExposed() {
		withRegistries.withPropertyValues("management.endpoints.web.exposure.include=health")
			.run(context -> assertThat(context).doesNotHaveBean(LocksEndpoint.class)
				.hasSingleBean(LocksHealthIndicator.class));
	}

	@Test
	void endpointBacksOffWithoutActuator() {
		withRegistries.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.run(context -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(LocksEndpoint.class)
				.hasSingleBean(LocksHealthIndicator.class)
				.hasSingleBean(LockMetricsListener.class));
	}

	@Test
	void everyActuatorPartBacksOffWithoutActuatorAndHealthJars() {
		asImported.withClassLoader(withoutJars("org.springframework.boot.actuate", "org.springframework.boot.health"))
			.run(context -> assertThat(context).hasNotFailed()
				.hasSingleBean(LockTemplate.class)
				.doesNotHaveBean(LocksEndpoint.class)
				.doesNotHaveBean(LocksHealthIndicator.class)
				.hasSingleBean(LockMetricsListener.class)
				.hasSingleBean(LockObservationListener.class));
	}

	@Test
	void metricsBackOffWithoutMicrometerCoreJar() {
		asImported.withClassLoader(withoutJars("io.micrometer.core"))
			.run(context -> assertThat(context).hasNotFailed()
				.hasSingleBean(LockTemplate.class)
				.doesNotHaveBean(LockMetricsListener.class)
				.hasSingleBean(LockObservationListener.class)
				.hasSingleBean(LocksEndpoint.class)
				.hasSingleBean(LocksHealthIndicator.class));
	}

	@Test
	void metricsAndObservationsBackOffWithoutAnyMicrometerJarAndLockingStillWorks() {
		// No registry beans either: without Micrometer an application could not declare one.
		new ApplicationContextRunner().withUserConfiguration(ImportedByName.class)
			.withPropertyValues("distributed-lock.provider=in-memory",
					"management.endpoints.web.exposure.include=locks")
			.withClassLoader(withoutJars("io.micrometer"))
			.run(context -> {
				assertThat(context).hasNotFailed()
					.hasSingleBean(LockTemplate.class)
					.doesNotHaveBean(LockMetricsListener.class)
					.doesNotHaveBean(LockObservationListener.class)
					.hasSingleBean(LocksEndpoint.class)
					.hasSingleBean(LocksHealthIndicator.class);
				LockTemplate template = context.getBean(LockTemplate.class);
				try (LockHandle handle = template.acquire("orders:1")) {
					assertThat(template.tryAcquire("orders:1")).isEmpty();
					assertThat(context.getBean(LocksEndpoint.class).locks(null, null, null).held())
						.extracting(LocksDescriptor.HeldLock::key)
						.containsExactly("orders:1");
				}
				assertThat(template.isLocked("orders:1")).isFalse();
			});
	}

	@Test
	void healthBacksOffWithoutHealthModule() {
		withRegistries.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
			.run(context -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(LocksHealthIndicator.class)
				.hasSingleBean(LocksEndpoint.class));
	}

	@Test
	void healthIndicatorCanBeSwitchedOff() {
		withRegistries.withPropertyValues("management.health.locks.enabled=false")
			.run(context -> assertThat(context).doesNotHaveBean(LocksHealthIndicator.class));
	}

	@Test
	void metricsAndObservationsBackOffWithoutRegistries() {
		runner.run(context -> assertThat(context).hasNotFailed()
			.doesNotHaveBean(LockMetricsListener.class)
			.doesNotHaveBean(LockObservationListener.class)
			.hasSingleBean(LocksEndpoint.class));
	}

	@Test
	void everythingBacksOffWhenLocksAreDisabled() {
		withRegistries.withPropertyValues("distributed-lock.enabled=false")
			.run(context -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(LockTemplate.class)
				.doesNotHaveBean(LocksEndpoint.class)
				.doesNotHaveBean(LocksHealthIndicator.class)
				.doesNotHaveBean(LockMetricsListener.class));
	}

	@Test
	void userBeansReplaceTheDefaults() {
		LockKeyTag custom = key -> "all";
		withRegistries.withBean(LockKeyTag.class, () -> custom)
			.withBean("locksHealthIndicator", HealthIndicator.class,
					() -> () -> org.springframework.boot.health.contributor.Health.up().build())
			.run(context -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(LocksHealthIndicator.class)
				.getBean(LockKeyTag.class)
				.isSameAs(custom));
	}

	@Test
	void userListenersAndEndpointReplaceTheDefaults() {
		withRegistries.withUserConfiguration(UserOperations.class)
			.run(context -> assertThat(context).hasNotFailed()
				.hasSingleBean(LockMetricsListener.class)
				.hasSingleBean(LockObservationListener.class)
				.hasSingleBean(LocksEndpoint.class)
				.hasBean("userMetrics")
				.hasBean("userObservations")
				.hasBean("userEndpoint")
				.doesNotHaveBean("lockMetricsListener")
				.doesNotHaveBean("lockObservationListener")
				.doesNotHaveBean("locksEndpoint"));
	}

	@Test
	void userEndpointWinsOverTheForceReleaseOne() {
		withRegistries.withUserConfiguration(UserOperations.class)
			.withPropertyValues("distributed-lock.actuator.force-release-enabled=true")
			.run(context -> assertThat(context).hasSingleBean(LocksEndpoint.class)
				.doesNotHaveBean(ForceReleaseLocksEndpoint.class)
				.hasBean("userEndpoint"));
	}

	@Test
	void metricsBackOffWithoutMeterRegistryClass() {
		withRegistries.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
			.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockMetricsListener.class));
	}

	@Test
	void badActuatorPropertiesFailNamingTheProperty() {
		withRegistries.withPropertyValues("distributed-lock.actuator.status-limit=0")
			.run(context -> assertThat(context).hasFailed()
				.getFailure()
				.hasRootCauseInstanceOf(InvalidLockOptionException.class)
				.rootCause()
				.hasMessageContaining("distributed-lock.actuator.status-limit"));
		withRegistries.withPropertyValues("distributed-lock.actuator.health-timeout=0s")
			.run(context -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("distributed-lock.actuator.health-timeout"));
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			distributed-lock.actuator.force-release-enabled=no way | distributed-lock.actuator.force-release-enabled
			distributed-lock.actuator.status-limit=many            | distributed-lock.actuator.status-limit
			distributed-lock.actuator.status-limit=-3              | distributed-lock.actuator.status-limit
			distributed-lock.actuator.health-timeout=soon          | distributed-lock.actuator.health-timeout
			distributed-lock.actuator.health-timeout=-1s           | distributed-lock.actuator.health-timeout
			""")
	void eachBadActuatorPropertyFailsNamingIt(String property, String name) {
		withRegistries.withPropertyValues(property)
			.run(context -> assertThat(context).hasFailed().getFailure().hasStackTraceContaining(name));
	}

	/**
	 * Hides classes and class files of the packages, as if their jars were absent: hiding classes only would leave
	 * annotations readable from their bytes, which no real classpath does.
	 */
	private static FilteredClassLoader withoutJars(String... packages) {
		Predicate<String> hidden = name -> Arrays.stream(packages)
			.anyMatch(pkg -> name.startsWith(pkg) || name.startsWith(pkg.replace('.', '/')));
		return new FilteredClassLoader(hidden);
	}

	@Configuration(proxyBeanMethods = false)
	static class UserOperations {

		@Bean
		LockMetricsListener userMetrics(MeterRegistry registry, ObjectProvider<LockTemplate> template) {
			return new LockMetricsListener(registry, template::getObject, key -> "all");
		}

		@Bean
		LockObservationListener userObservations(ObservationRegistry registry, ObjectProvider<LockTemplate> template) {
			return new LockObservationListener(registry, template::getObject, key -> "all", null);
		}

		@Bean
		LocksEndpoint userEndpoint(LockTemplate template) {
			return new LocksEndpoint(new LockOperations(template), 5);
		}

	}

	@ImportAutoConfiguration({ DistributedLockAutoConfiguration.class, DistributedLockActuatorAutoConfiguration.class })
	static class ImportedByName {

	}

}
