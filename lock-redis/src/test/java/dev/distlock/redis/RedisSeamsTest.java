package dev.distlock.redis;

import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.test.kit.LockTemplateSeamsTest;
import dev.distlock.test.kit.StoreRecords;
import dev.distlock.test.kit.TcpProxy;
import dev.distlock.redis.testsupport.RedisServerProcess;

/**
 * The seams suite on a private redis-server, the provider under test reached through a {@link TcpProxy} with a 1 s
 * Lettuce command timeout and auto-reconnect on (Lettuce's default), so a cut connection is re-opened and unanswered
 * commands are replayed. The probing template and the leftover check ({@link RedisStoreRecords}) talk to the server
 * directly.
 */
class RedisSeamsTest extends LockTemplateSeamsTest {

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

	private static RedisServerProcess server;

	private static TcpProxy proxy;

	private static LettuceConnectionFactory proxied;

	private static LettuceConnectionFactory direct;

	@BeforeAll
	static void startServer() {
		server = RedisServerProcess.startOnFreePort();
		proxy = TcpProxy.start(server.port());
		proxied = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", proxy.port()),
				RedisServerProcess.clientConfiguration(COMMAND_TIMEOUT));
		proxied.afterPropertiesSet();
		proxied.start();
		direct = server.connectionFactory(COMMAND_TIMEOUT);
	}

	@AfterAll
	static void stopServer() {
		proxied.destroy();
		direct.destroy();
		proxy.close();
		server.close();
	}

	@Override
	protected LockProvider createProvider() {
		return new RedisLockProvider(proxied, settings());
	}

	@Override
	protected LockProvider createObserverProvider(LockProvider provider) {
		return new RedisLockProvider(direct, settings());
	}

	/**
	 * The settings both providers run with; a subclass runs the suite with others.
	 */
	protected RedisLockSettings settings() {
		return RedisLockSettings.defaults();
	}

	@Override
	protected void destroyProvider(LockProvider provider) {
		((RedisLockProvider) provider).close();
	}

	@Override
	protected StoreRecords storeRecords() {
		return new RedisStoreRecords(direct);
	}

	@Override
	protected TcpProxy proxy() {
		return proxy;
	}

	@Override
	protected Duration commandTimeout() {
		return COMMAND_TIMEOUT;
	}

}
