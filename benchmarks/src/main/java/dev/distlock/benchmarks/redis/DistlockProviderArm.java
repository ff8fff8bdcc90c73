package dev.distlock.benchmarks.redis;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.distlock.benchmarks.harness.LockArm;
import dev.distlock.benchmarks.harness.LockClient;
import dev.distlock.benchmarks.harness.ProviderClient;
import dev.distlock.redis.RedisLockProvider;
import dev.distlock.redis.RedisLockSettings;

/**
 * A diagnostic arm: distlock's {@link RedisLockProvider} called through its SPI, without {@code LockTemplate}, with
 * a token made as the floor makes its own and a tight retry loop as the floor's wait. Set against the floor it shows
 * what the provider itself costs; set against the distlock arm, what the template (tokens, handles, listeners,
 * waiting) adds.
 */
public final class DistlockProviderArm implements LockArm {

	private final int port;

	private final boolean fencing;

	/**
	 * An arm on the server at the port, with fencing tokens.
	 */
	public DistlockProviderArm(int port) {
		this(port, true);
	}

	/**
	 * An arm on the server at the port, with or without fencing tokens ({@code fencing=false}).
	 */
	public DistlockProviderArm(int port, boolean fencing) {
		this.port = port;
		this.fencing = fencing;
	}

	@Override
	public String name() {
		return "distlock provider alone (SPI, spins like the floor)" + (fencing ? "" : ", fencing off");
	}

	@Override
	public boolean renewing() {
		return false;
	}

	@Override
	public LockClient newClient() {
		LettuceConnectionFactory connectionFactory = BenchmarkRedisServer.connect(port);
		RedisLockProvider provider = new RedisLockProvider(connectionFactory,
				RedisLockSettings.defaults().withFencing(fencing));
		return new ProviderClient(provider, Thread::onSpinWait, () -> {
			provider.close();
			connectionFactory.destroy();
		});
	}

}
