package dev.distlock.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.redis.RedisLockProvider;
import dev.distlock.redis.RedisLockSettings;

/**
 * The Redis provider, on the application's {@link RedisConnectionFactory}. Runs after Spring Boot's Redis
 * auto-configuration and before the core one, and is the first choice of {@code provider=auto}.
 */
@AutoConfiguration(before = DistributedLockAutoConfiguration.class,
		afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass({ RedisLockProvider.class, RedisConnectionFactory.class })
@ConditionalOnLocksEnabled
@ConditionalOnLockProvider(LockProviderType.REDIS)
@EnableConfigurationProperties(RedisLockProperties.class)
public final class RedisLockAutoConfiguration {

	/**
	 * The provider, unless the application has its own {@link LockProvider}.
	 */
	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean(LockProvider.class)
	@ConditionalOnSingleCandidate(RedisConnectionFactory.class)
	RedisLockProvider redisLockProvider(RedisConnectionFactory connectionFactory, RedisLockProperties redis) {
		RedisLockSettings settings = LockPropertyValues.storeSettings("redis", () -> new RedisLockSettings(
				LockPropertyValues.text("redis.namespace", redis.getNamespace()), redis.isPubSub(),
				redis.getFenceRetention(), redis.getReplicaAcks(), redis.isFencing()));
		return new RedisLockProvider(connectionFactory, settings);
	}

	/**
	 * Closes the provider's own connections once the held locks are released ({@link LockShutdown}) and before the
	 * connection factory stops (phase 0): the Lettuce client's shutdown waits for every connection opened on it, and
	 * after a cluster node died it once waited forever for the provider's lock-script connection.
	 */
	@Bean
	@ConditionalOnBean(RedisLockProvider.class)
	SmartLifecycle redisLockProviderStop(RedisLockProvider provider) {
		return new SmartLifecycle() {

			private volatile boolean running;

			@Override
			public void start() {
				running = true;
			}

			@Override
			public void stop() {
				running = false;
				provider.close();
			}

			@Override
			public boolean isRunning() {
				return running;
			}

			@Override
			public int getPhase() {
				return LockShutdown.PHASE - 1;
			}

		};
	}

}
