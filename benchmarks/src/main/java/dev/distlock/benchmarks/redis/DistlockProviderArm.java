package dev.distlock.benchmarks.redis;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.distlock.benchmarks.harness.LockArm;
import dev.distlock.benchmarks.harness.LockClient;
import dev.distlock.core.LockMode;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.redis.RedisLockProvider;
import dev.distlock.redis.RedisLockSettings;

/**
 * A diagnostic arm: distlock's {@link RedisLockProvider} called through its SPI, without {@code LockTemplate}, with
 * a token made as the floor makes its own and a tight retry loop as the floor's wait. Set against the floor it shows
 * what the provider itself costs; set against the distlock arm, what the template (tokens, handles, listeners,
 * waiting) adds.
 */
public final class DistlockProviderArm implements LockArm {

	private static final Duration LEASE = Duration.ofSeconds(10);

	private static final OwnerDetails OWNER = new OwnerDetails("benchmarks", "localhost");

	private final int port;

	/**
	 * An arm on the server at the port.
	 */
	public DistlockProviderArm(int port) {
		this.port = port;
	}

	@Override
	public String name() {
		return "distlock provider alone (SPI, spins like the floor)";
	}

	@Override
	public boolean renewing() {
		return false;
	}

	@Override
	public LockClient newClient() {
		return new Client(port);
	}

	private static final class Client implements LockClient {

		private final LettuceConnectionFactory connectionFactory;

		private final RedisLockProvider provider;

		Client(int port) {
			this.connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
			this.connectionFactory.afterPropertiesSet();
			this.connectionFactory.start();
			this.provider = new RedisLockProvider(connectionFactory, RedisLockSettings.defaults());
		}

		@Override
		public Object lock(String key) {
			ThreadLocalRandom random = ThreadLocalRandom.current();
			LockRequest request = new LockRequest(key,
					Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong()), LEASE,
					LockMode.EXCLUSIVE, 1, OWNER);
			Optional<Lease> lease;
			while ((lease = provider.tryAcquire(request)).isEmpty()) {
				Thread.onSpinWait();
			}
			return lease.get();
		}

		@Override
		public void unlock(Object held) {
			((Lease) held).release();
		}

		@Override
		public void close() {
			provider.close();
			connectionFactory.destroy();
		}

	}

}
