package dev.distlock.benchmarks.redis;

import java.time.Duration;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import dev.distlock.benchmarks.harness.LockArm;
import dev.distlock.benchmarks.harness.LockClient;
import dev.distlock.benchmarks.harness.RegistryClient;

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
		LettuceConnectionFactory connectionFactory = BenchmarkRedisServer.connect(port);
		RedisLockRegistry registry = new RedisLockRegistry(connectionFactory, "si-bench", Duration.ofSeconds(10));
		registry.setRedisLockType(type);
		ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
		if (renew) {
			scheduler.setThreadNamePrefix("si-renewal-");
			scheduler.initialize();
			registry.setRenewalTaskScheduler(scheduler);
		}
		return new RegistryClient(registry, () -> {
			registry.destroy();
			scheduler.shutdown();
			connectionFactory.destroy();
		});
	}

}
