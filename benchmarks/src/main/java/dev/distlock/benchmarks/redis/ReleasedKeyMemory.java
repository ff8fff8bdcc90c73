package dev.distlock.benchmarks.redis;

import java.time.Duration;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.distlock.core.LockMode;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.redis.RedisLockProvider;
import dev.distlock.redis.RedisLockSettings;

/**
 * What a released key leaves in Redis: {@link #KEYS} distinct keys, each acquired and released once by the provider
 * with a one-second fence retention, measured as {@code used_memory} per key right after the releases (the fence
 * hashes, kept for the retention) and once the retention has passed and Redis has expired them (target: 0).
 */
public final class ReleasedKeyMemory {

	/** Distinct keys locked and released once. */
	public static final int KEYS = 20_000;

	/** The fence retention of this measurement; the default of a day would make the wait a day long. */
	public static final Duration RETENTION = Duration.ofSeconds(1);

	private static final OwnerDetails OWNER = new OwnerDetails("benchmarks", "localhost");

	private ReleasedKeyMemory() {
	}

	/**
	 * The figures, in bytes per released key.
	 * @param withinRetention right after the releases
	 * @param afterRetention once every fence hash has expired
	 * @param keysLeft keys still in the database at the end (should be 0)
	 * @param expiredAfter how long after the last release Redis had expired them all
	 */
	public record Result(double withinRetention, double afterRetention, long keysLeft, Duration expiredAfter) {
	}

	/**
	 * Measures on the server at the port (emptied first and after).
	 */
	public static Result measure(int port, RedisStats stats) {
		stats.flushAll();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
		factory.afterPropertiesSet();
		factory.start();
		try (RedisLockProvider provider = new RedisLockProvider(factory,
				new RedisLockSettings("distlock", true, RETENTION))) {
			// One cycle first, so the connections and loaded scripts are in the baseline, not in the per-key figure.
			cycle(provider, "warm");
			waitForEmpty(stats, Duration.ofSeconds(30));
			long before = stats.usedMemory();
			for (int i = 0; i < KEYS; i++) {
				cycle(provider, "order:" + i);
			}
			long released = System.nanoTime();
			long within = stats.usedMemory();
			long left = waitForEmpty(stats, Duration.ofSeconds(60));
			Duration expiredAfter = Duration.ofNanos(System.nanoTime() - released);
			long after = stats.usedMemory();
			return new Result((within - before) / (double) KEYS, (after - before) / (double) KEYS, left,
					expiredAfter);
		}
		finally {
			factory.destroy();
			stats.flushAll();
		}
	}

	private static void cycle(RedisLockProvider provider, String key) {
		provider.tryAcquire(new LockRequest(key, "t", Duration.ofMillis(500), LockMode.EXCLUSIVE, 1, OWNER))
			.orElseThrow()
			.release();
	}

	/** Polls DBSIZE until Redis's own expiry has removed every key; returns the keys left at the deadline. */
	private static long waitForEmpty(RedisStats stats, Duration bound) {
		long deadline = System.nanoTime() + bound.toNanos();
		long keys;
		while ((keys = stats.dbSize()) > 0 && System.nanoTime() < deadline) {
			try {
				Thread.sleep(100);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
		}
		return keys;
	}

}
