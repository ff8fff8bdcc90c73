package dev.distlock.redis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.testkit.LockProviderContractTest;
import dev.distlock.redis.testsupport.RedisServerProcess;

/**
 * The Redis provider passes the whole contract kit against a private redis-server.
 */
class RedisLockProviderContractTest extends LockProviderContractTest {

	private static RedisServerProcess server;

	/** The factory every provider of the class uses; its server is private to the test class. */
	protected static LettuceConnectionFactory factory;

	@BeforeAll
	static void startServer() {
		server = RedisServerProcess.startOnFreePort();
		factory = server.connectionFactory();
	}

	@AfterAll
	static void stopServer() {
		factory.destroy();
		server.close();
	}

	@Override
	protected LockProvider createProvider() {
		return new RedisLockProvider(factory, settings());
	}

	/**
	 * The settings the providers run with; a subclass runs the kit with others.
	 */
	protected RedisLockSettings settings() {
		return RedisLockSettings.defaults();
	}

	@Override
	protected void destroyProvider(LockProvider provider) {
		((RedisLockProvider) provider).close();
	}

}
