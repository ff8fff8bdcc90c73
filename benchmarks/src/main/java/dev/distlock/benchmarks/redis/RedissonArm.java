package dev.distlock.benchmarks.redis;

import java.util.concurrent.TimeUnit;

import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import dev.distlock.benchmarks.harness.LockArm;
import dev.distlock.benchmarks.harness.LockClient;

/**
 * Redisson's {@link RLock}: with an explicit 10 s lease, or with no lease so its watchdog renews the default 30 s one.
 * Each client is its own {@link RedissonClient}, with a small pool so 32 of them stay within this machine's means.
 */
public final class RedissonArm implements LockArm {

	private final String uri;

	private final boolean watchdog;

	/**
	 * An arm on the server at the URI, in lease or watchdog mode.
	 */
	public RedissonArm(String uri, boolean watchdog) {
		this.uri = uri;
		this.watchdog = watchdog;
	}

	@Override
	public String name() {
		return watchdog ? "Redisson RLock (watchdog)" : "Redisson RLock (10 s lease)";
	}

	@Override
	public boolean renewing() {
		return watchdog;
	}

	@Override
	public LockClient newClient() {
		Config config = new Config();
		config.setNettyThreads(4).setThreads(2);
		config.useSingleServer()
			.setAddress(uri)
			.setConnectionMinimumIdleSize(2)
			.setConnectionPoolSize(16)
			.setSubscriptionConnectionMinimumIdleSize(1)
			.setSubscriptionConnectionPoolSize(4);
		return new Client(Redisson.create(config), watchdog);
	}

	private record Client(RedissonClient redisson, boolean watchdog) implements LockClient {

		@Override
		public Object lock(String key) {
			RLock lock = redisson.getLock(key);
			if (watchdog) {
				lock.lock();
			}
			else {
				lock.lock(10, TimeUnit.SECONDS);
			}
			return lock;
		}

		@Override
		public void unlock(Object held) {
			((RLock) held).unlock();
		}

		@Override
		public void close() {
			redisson.shutdown();
		}

	}

}
