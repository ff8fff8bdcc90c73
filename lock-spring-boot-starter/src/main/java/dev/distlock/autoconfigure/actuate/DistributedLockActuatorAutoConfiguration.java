package dev.distlock.autoconfigure.actuate;

import java.util.concurrent.Executor;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

import dev.distlock.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.autoconfigure.LockThreads;
import dev.distlock.core.LockOperations;
import dev.distlock.core.LockTemplate;

/**
 * Operations for distlock: the {@code locks} endpoint, the {@code locks} health indicator, meters and observations.
 * Each part is a nested configuration that backs off when actuator, the health module or Micrometer is absent.
 */
@AutoConfiguration(after = DistributedLockAutoConfiguration.class, afterName = {
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
		"org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration" })
@ConditionalOnBean(LockOperations.class)
@EnableConfigurationProperties(LocksActuatorProperties.class)
public final class DistributedLockActuatorAutoConfiguration {

	/**
	 * Turns template keys into the {@code key.prefix} tag: the part before the first {@code ':'}, else {@code none}.
	 */
	@Bean
	@ConditionalOnMissingBean
	LockKeyTag lockKeyTag() {
		return LockKeyTag.beforeFirstColon();
	}

	/**
	 * The {@code locks} endpoint, read-only unless the forced release is enabled.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
	@ConditionalOnAvailableEndpoint(LocksEndpoint.class)
	static class EndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean(LocksEndpoint.class)
		@ConditionalOnBooleanProperty(name = "distributed-lock.actuator.force-release-enabled", havingValue = false,
				matchIfMissing = true)
		LocksEndpoint locksEndpoint(LockOperations operations, LocksActuatorProperties properties) {
			return new LocksEndpoint(operations, properties.checkedStatusLimit());
		}

		@Bean
		@ConditionalOnMissingBean(LocksEndpoint.class)
		@ConditionalOnBooleanProperty("distributed-lock.actuator.force-release-enabled")
		ForceReleaseLocksEndpoint forceReleaseLocksEndpoint(LockOperations operations,
				LocksActuatorProperties properties) {
			return new ForceReleaseLocksEndpoint(operations, properties.checkedStatusLimit());
		}

	}

	/**
	 * The {@code locks} health indicator, off with {@code management.health.locks.enabled=false}.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
	@ConditionalOnEnabledHealthIndicator("locks")
	static class HealthConfiguration {

		/**
		 * Pings on distlock's threads; on a thread per call only when distlock's auto-configuration is off and the
		 * template is the application's own.
		 */
		@Bean
		@ConditionalOnMissingBean(name = "locksHealthIndicator")
		LocksHealthIndicator locksHealthIndicator(LockOperations operations, LocksActuatorProperties properties,
				ObjectProvider<LockThreads> threads) {
			LockThreads own = threads.getIfAvailable();
			Executor pings = own != null ? own.executor() : new SimpleAsyncTaskExecutor("distlock-health-");
			return new LocksHealthIndicator(operations, properties.checkedHealthTimeout(), pings);
		}

	}

	/**
	 * The distlock meters, when a {@link MeterRegistry} exists.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	@ConditionalOnBean(MeterRegistry.class)
	static class MetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LockMetricsListener lockMetricsListener(MeterRegistry registry, ObjectProvider<LockTemplate> template,
				LockKeyTag keyTag) {
			return new LockMetricsListener(registry, template::getObject, keyTag);
		}

	}

	/**
	 * The acquire and held-lock observations, when an {@link ObservationRegistry} exists; with Boot's metrics they are
	 * also the source of the distlock timers.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(ObservationRegistry.class)
	@ConditionalOnBean(ObservationRegistry.class)
	static class ObservationConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LockObservationListener lockObservationListener(ObservationRegistry registry,
				ObjectProvider<LockTemplate> template, LockKeyTag keyTag,
				ObjectProvider<ObservationConvention<LockObservationContext>> convention,
				ObjectProvider<ObservationConvention<LockAcquireObservationContext>> acquireConvention) {
			return new LockObservationListener(registry, template::getObject, keyTag, convention.getIfUnique(),
					acquireConvention.getIfUnique());
		}

	}

}
