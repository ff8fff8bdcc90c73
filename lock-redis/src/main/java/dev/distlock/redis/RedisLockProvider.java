package dev.distlock.redis;

import java.util.Optional;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;

/**
 * Locks in Redis. (Skeleton: the Redis issue fills it in.)
 */
public final class RedisLockProvider implements LockProvider, AutoCloseable {

	private final RedisConnectionFactory connectionFactory;

	private final RedisLockSettings settings;

	/**
	 * A provider on the connection factory.
	 */
	public RedisLockProvider(RedisConnectionFactory connectionFactory, RedisLockSettings settings) {
		this.connectionFactory = connectionFactory;
		this.settings = settings;
	}

	@Override
	public Optional<Lease> tryAcquire(LockRequest request) {
		throw new UnsupportedOperationException("not yet");
	}

	@Override
	public boolean isLocked(String key) {
		throw new UnsupportedOperationException("not yet");
	}

	@Override
	public String name() {
		return "redis";
	}

	@Override
	public void close() {
	}

}
