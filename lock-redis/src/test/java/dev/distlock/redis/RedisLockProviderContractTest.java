package dev.distlock.redis;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.distlock.core.LockMode;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.test.kit.LockProviderContractTest;
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
		RedisLockProvider provider = new RedisLockProvider(factory, settings());
		// Open the provider's script connection and load the scripts before the timed kit tests: the first connection
		// of a JVM can take longer than a short test lease, and a grant whose lease ran out on the way is refused.
		provider.tryAcquireAll(List.of(new LockRequest("warm-up", "w", Duration.ofSeconds(5), LockMode.EXCLUSIVE, 1,
				new OwnerDetails("warm-up", "test-host")))).orElseThrow().forEach(Lease::release);
		return provider;
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
