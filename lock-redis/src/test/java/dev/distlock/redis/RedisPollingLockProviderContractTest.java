package dev.distlock.redis;

import java.util.Properties;

import org.junit.jupiter.api.AfterAll;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.core.spi.LockProvider;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code distributed-lock.redis.pub-sub=false} waiters poll with backoff instead of waiting for release signals
 * or queueing for a hand-off; the whole contract kit must hold on that path too, and nothing may be subscribed.
 */
class RedisPollingLockProviderContractTest extends RedisLockProviderContractTest {

	@Override
	protected RedisLockSettings settings() {
		return new RedisLockSettings("polling", false);
	}

	@Override
	protected void destroyProvider(LockProvider provider) {
		// Every kit test that waited did so by polling: no channel was ever watched.
		assertThat(((RedisLockProvider) provider).channels().subscribedChannels()).isZero();
		super.destroyProvider(provider);
	}

	/**
	 * Runs before the server stops (JUnit runs a subclass's {@code @AfterAll} first): not one SUBSCRIBE reached Redis
	 * during the whole kit.
	 */
	@AfterAll
	static void noSubscribeReachedTheServer() {
		Properties stats = new StringRedisTemplate(factory)
			.execute((RedisCallback<Properties>) connection -> connection.serverCommands().info("commandstats"));
		assertThat(stats).isNotNull();
		assertThat(stats.stringPropertyNames()).noneMatch(name -> name.contains("subscribe"));
	}

}
