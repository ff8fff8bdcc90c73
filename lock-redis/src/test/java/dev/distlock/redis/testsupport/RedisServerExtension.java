package dev.distlock.redis.testsupport;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A redis-server of the test class's own on a free port, with a started connection factory and a template on it:
 * started before the class's tests, stopped after them. Register it as a static field:
 * {@code @RegisterExtension static final RedisServerExtension server = new RedisServerExtension();}
 */
public final class RedisServerExtension implements BeforeAllCallback, AfterAllCallback {

	private final @Nullable Duration commandTimeout;

	private @Nullable RedisServerProcess process;

	private @Nullable LettuceConnectionFactory factory;

	private @Nullable StringRedisTemplate redis;

	/**
	 * A server whose factory has the default command timeout.
	 */
	public RedisServerExtension() {
		this(null);
	}

	/**
	 * A server whose factory gives up on a command after {@code commandTimeout}.
	 */
	public RedisServerExtension(@Nullable Duration commandTimeout) {
		this.commandTimeout = commandTimeout;
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		process = RedisServerProcess.startOnFreePort();
		factory = commandTimeout != null ? process.connectionFactory(commandTimeout) : process.connectionFactory();
		redis = new StringRedisTemplate(factory);
	}

	@Override
	public void afterAll(ExtensionContext context) {
		if (factory != null) {
			factory.destroy();
		}
		if (process != null) {
			process.close();
		}
	}

	/** The server process. */
	public RedisServerProcess process() {
		return started(process);
	}

	/** The started connection factory on the server. */
	public LettuceConnectionFactory factory() {
		return started(factory);
	}

	/** A template on {@link #factory()}. */
	public StringRedisTemplate redis() {
		return started(redis);
	}

	private static <T> T started(@Nullable T value) {
		if (value == null) {
			throw new IllegalStateException("The Redis server starts before the test class's tests");
		}
		return value;
	}

}
