package dev.distlock.autoconfigure;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.task.SimpleAsyncTaskExecutorBuilder;
import org.springframework.boot.task.ThreadPoolTaskExecutorBuilder;
import org.springframework.boot.task.ThreadPoolTaskSchedulerBuilder;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

import dev.distlock.core.LockListener;
import dev.distlock.core.LockOperations;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.memory.InMemoryLockProvider;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.spring.DistributedLockBeanPostProcessor;

/**
 * The core of distlock: the {@link LockTemplate}, the {@code @DistributedLock} post-processor and, when no store
 * auto-configuration supplied a {@link LockProvider}, the in-memory fallback.
 */
@AutoConfiguration
@ConditionalOnLocksEnabled
@EnableConfigurationProperties(DistributedLockProperties.class)
public final class DistributedLockAutoConfiguration {

	private static final Log logger = LogFactory.getLog(DistributedLockAutoConfiguration.class);

	/**
	 * The in-memory provider when {@code provider} is {@code auto} or {@code in-memory} and no store was configured;
	 * a startup failure naming the property when {@code redis}, {@code mongo} or {@code jdbc} was asked for and is missing.
	 */
	@Bean
	@ConditionalOnMissingBean
	LockProvider lockProvider(DistributedLockProperties properties) {
		return switch (properties.getProvider()) {
			case REDIS -> throw LockPropertyValues.invalid("provider", "is redis, but no Redis lock provider could be "
					+ "configured: add dev.distlock:lock-redis and spring-boot-starter-data-redis so that a single "
					+ "RedisConnectionFactory bean exists");
			case MONGO -> throw LockPropertyValues.invalid("provider", "is mongo, but no MongoDB lock provider could be "
					+ "configured: add dev.distlock:lock-mongo and spring-boot-starter-data-mongodb so that a single "
					+ "MongoTemplate bean exists");
			case JDBC -> throw LockPropertyValues.invalid("provider", "is jdbc, but no JDBC lock provider could be "
					+ "configured: add dev.distlock:lock-jdbc and spring-boot-starter-jdbc so that a single DataSource "
					+ "bean exists");
			case IN_MEMORY -> {
				logger.info("Using the in-memory lock provider: locks are JVM-local");
				yield new InMemoryLockProvider();
			}
			case AUTO -> {
				logger.warn("No Redis, MongoDB or JDBC lock store is configured; falling back to the in-memory lock provider, "
						+ "whose locks are JVM-local and do not exclude other instances");
				yield new InMemoryLockProvider();
			}
		};
	}

	/**
	 * distlock's threads, built with Boot's task builders (plain ones when Boot's task auto-configuration is off): on
	 * virtual threads when {@code spring.threads.virtual.enabled} is set on Java 21 or later.
	 */
	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	LockThreads lockThreads(Environment environment, ObjectProvider<ThreadPoolTaskSchedulerBuilder> schedulers,
			ObjectProvider<ThreadPoolTaskExecutorBuilder> pools, ObjectProvider<SimpleAsyncTaskExecutorBuilder> simple) {
		ThreadPoolTaskSchedulerBuilder scheduler = schedulers.getIfAvailable(ThreadPoolTaskSchedulerBuilder::new);
		if (Threading.VIRTUAL.isActive(environment)) {
			return LockThreads.virtual(scheduler, simple.getIfAvailable(SimpleAsyncTaskExecutorBuilder::new));
		}
		return LockThreads.platform(scheduler, pools.getIfAvailable(ThreadPoolTaskExecutorBuilder::new));
	}

	/**
	 * The template, with the properties as defaults, every {@link LockListener} bean, and renewals on
	 * {@link LockThreads}.
	 */
	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	LockTemplate lockTemplate(LockProvider provider, DistributedLockProperties properties,
			ObjectProvider<LockListener> listeners, Environment environment, LockThreads threads) {
		LockTemplate.Builder builder = LockTemplate.builder(provider)
			.scheduler(threads.scheduler())
			.renewalExecutor(threads.executor())
			.defaults(LockPropertyValues.options(properties))
			.keyPrefix(LockPropertyValues.keyPrefix(properties))
			.owner(LockPropertyValues.owner(properties, environment));
		listeners.orderedStream().forEach(builder::listener);
		logger.debug("Lock template on provider '" + provider.name() + "'");
		return builder.build();
	}

	/**
	 * What operators call on the template's store and held locks: status, forced release, ping, release-all.
	 */
	@Bean
	@ConditionalOnMissingBean
	LockOperations lockOperations(LockTemplate template) {
		return new LockOperations(template);
	}

	/**
	 * Releases held locks at shutdown before the store's connections close.
	 */
	@Bean
	LockShutdown distributedLockShutdown(LockOperations operations, DistributedLockProperties properties) {
		return new LockShutdown(operations,
				LockPropertyValues.positive("shutdown-wait", properties.getShutdownWait()));
	}

	/**
	 * Proxies {@code @DistributedLock} beans. Static, as post-processors must be, so it binds its own properties.
	 */
	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static DistributedLockBeanPostProcessor distributedLockBeanPostProcessor(ObjectProvider<LockTemplate> template,
			Environment environment) {
		DistributedLockProperties properties = Binder.get(environment)
			.bindOrCreate("distributed-lock", DistributedLockProperties.class);
		DistributedLockBeanPostProcessor postProcessor = new DistributedLockBeanPostProcessor(template::getObject,
				properties.getSpel().isBeanReferences());
		postProcessor.setBeforeExistingAdvisors(properties.getAop().isBeforeExistingAdvisors());
		postProcessor.setOrder(properties.getAop().getOrder());
		return postProcessor;
	}

}
