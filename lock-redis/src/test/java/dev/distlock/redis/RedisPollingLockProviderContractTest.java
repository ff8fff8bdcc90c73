package dev.distlock.redis;

import java.util.Properties;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.testkit.LockProviderContractTest;
import dev.distlock.redis.testsupport.RedisServerProcess;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code distributed-lock.redis.pub-sub=false} waiters poll with backoff instead of waiting for release signals;
 * the whole contract kit must hold on that path too, and no subscription connection may be opened.
 */
class RedisPollingLockProviderContractTest extends LockProviderContractTest {

	private static RedisServerProcess server;

	private static LettuceConnectionFactory factory;

	@BeforeAll
	static void startServer() {
		server = RedisServerProcess.startOnFreePort();
		factory = server.connectionFactory();
	}

	@AfterAll
	static void stopServer() {
		// Server side: not one SUBSCRIBE reached Redis during the whole kit.
		Properties stats = new StringRedisTemplate(factory)
			.execute((RedisCallback<Properties>) connection -> connection.serverCommands().info("commandstats"));
		assertThat(stats).isNotNull();
		assertThat(stats.stringPropertyNames()).noneMatch(name -> name.contains("subscribe"));
		factory.destroy();
		server.close();
	}

	@Override
	protected LockProvider createProvider() {
		return new RedisLockProvider(factory, new RedisLockSettings("polling", false));
	}

	@Override
	protected void destroyProvider(LockProvider provider) {
		RedisLockProvider redis = (RedisLockProvider) provider;
		// Every kit test that waited did so by polling: nothing was ever subscribed.
		assertThat(redis.signals().subscribedChannels()).isZero();
		redis.close();
	}

}
