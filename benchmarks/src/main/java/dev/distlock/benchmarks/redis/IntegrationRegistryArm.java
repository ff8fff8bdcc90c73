package dev.distlock.benchmarks.redis;

import java.time.Duration;
import java.util.concurrent.locks.Lock;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import dev.distlock.benchmarks.harness.LockArm;
import dev.distlock.benchmarks.harness.LockClient;

/**
 * Spring Integration's {@link RedisLockRegistry} with a 10 s expiry, in spin or pub/sub mode, optionally with its
 * renewal scheduler. Other settings are the defaults a user gets, including the 100 ms idle between spin tries.
 */
public final class IntegrationRegistryArm implements LockArm {

	private final int port;

	private final RedisLockType type;

	private final boolean renew;

	/**
	 * An arm on the server at the port.
	 */
	public IntegrationRegistryArm(int port, RedisLockType type, boolean renew) {
		this.port = port;
		this.type = type;
		this.renew = renew;
	}

	@Override
	public String name() {
		String mode = type == RedisLockType.SPIN_LOCK ? "spin" : "pub/sub";
		return "Spring Integration RedisLockRegistry (" + mode + (renew ? ", renewal" : "") + ")";
	}

	@Override
	public boolean renewing() {
		return renew;
	}

	@Override
	public LockClient newClient() {
		return new Client(port, type, renew);
	}

	private static final class Client implements LockClient {

		private final LettuceConnectionFactory connectionFactory;

		private final RedisLockRegistry registry;

		private final ThreadPoolTaskScheduler scheduler;

		Client(int port, RedisLockType type, boolean renew) {
			this.connectionFactory = BenchmarkRedisServer.connect(port);
			this.registry = new RedisLockRegistry(connectionFactory, "si-bench", Duration.ofSeconds(10));
			this.registry.setRedisLockType(type);
			this.scheduler = new ThreadPoolTaskScheduler();
			if (renew) {
				scheduler.setThreadNamePrefix("si-renewal-");
				scheduler.initialize();
				registry.setRenewalTaskScheduler(scheduler);
			}
		}

		@Override
		public Object lock(String key) {
			Lock lock = registry.obtain(key);
			lock.lock();
			return lock;
		}

		@Override
		public void unlock(Object held) {
			((Lock) held).unlock();
		}

		@Override
		public void close() {
			registry.destroy();
			scheduler.shutdown();
			connectionFactory.destroy();
		}

	}

}
