package dev.distlock.benchmarks.redis;

import java.time.Duration;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.distlock.benchmarks.harness.LockArm;
import dev.distlock.benchmarks.harness.LockClient;
import dev.distlock.benchmarks.harness.TemplateClient;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.redis.RedisLockProvider;
import dev.distlock.redis.RedisLockSettings;

/**
 * distlock: {@link LockTemplate} on {@link RedisLockProvider}, with the default settings (pub/sub release signals on,
 * or fencing tokens off: {@code fencing=false}) and a 10 s lease; waiting is the template's, bounded at 60 s.
 */
public final class DistlockRedisArm implements LockArm {

	private final int port;

	private final boolean autoRenew;

	private final boolean fencing;

	private final LockOptions options;

	/**
	 * An arm on the server at the port, with or without the watchdog, with fencing tokens.
	 */
	public DistlockRedisArm(int port, boolean autoRenew) {
		this(port, autoRenew, true);
	}

	/**
	 * An arm on the server at the port, with or without the watchdog and fencing tokens.
	 */
	public DistlockRedisArm(int port, boolean autoRenew, boolean fencing) {
		this.port = port;
		this.autoRenew = autoRenew;
		this.fencing = fencing;
		this.options = LockOptions.builder()
			.timeout(Duration.ofSeconds(10))
			.waitUpTo(Duration.ofSeconds(60))
			.autoRenew(autoRenew)
			.build();
	}

	@Override
	public String name() {
		return (autoRenew ? "distlock (auto-renew)" : "distlock") + (fencing ? "" : " (fencing off)");
	}

	@Override
	public boolean renewing() {
		return autoRenew;
	}

	@Override
	public LockClient newClient() {
		LettuceConnectionFactory connectionFactory = BenchmarkRedisServer.connect(port);
		RedisLockProvider provider = new RedisLockProvider(connectionFactory,
				RedisLockSettings.defaults().withFencing(fencing));
		return new TemplateClient(provider, options, () -> {
			provider.close();
			connectionFactory.destroy();
		});
	}

}
