package dev.distlock.benchmarks.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.core.LockMode;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.StatusQuery;
import dev.distlock.redis.RedisLockProvider;
import dev.distlock.redis.RedisLockSettings;

/**
 * The cost of {@code status(HELD)} over a keyspace of released keys: 100,000 released keys (their fence hashes, what
 * a release leaves) and 10 held locks, timed against one plain {@code SCAN} pass over the same keyspace with the same
 * page size. A ratio near 1 means status costs what walking the keyspace costs, whatever was ever locked.
 */
public final class StatusCost {

	/** Released keys in the keyspace. */
	public static final int RELEASED = 100_000;

	/** Held locks the status query must find. */
	public static final int HELD = 10;

	/** The page size the provider's status uses (RedisLockStatus.SCAN_COUNT). */
	private static final int SCAN_COUNT = 1000;

	private static final int RUNS = 7;

	private static final OwnerDetails OWNER = new OwnerDetails("benchmarks", "localhost");

	private StatusCost() {
	}

	/**
	 * One run's figures.
	 * @param statusMillis median time of {@code status(HELD)}
	 * @param scanMillis median time of one plain SCAN pass over the same keyspace
	 * @param matchScanMillis median time of one SCAN pass with the status query's MATCH pattern and nothing else
	 * @param found locks the status query returned (should be {@link #HELD})
	 * @param keys keys in the keyspace
	 * @param scanCalls SCAN commands of one status query
	 * @param scriptCalls EVALSHA commands of one status query
	 */
	public record Result(double statusMillis, double scanMillis, double matchScanMillis, int found, long keys,
			long scanCalls, long scriptCalls) {

		/** Status time over plain-SCAN time. */
		public double ratio() {
			return statusMillis / scanMillis;
		}

	}

	/**
	 * Fills the server at the port (emptied first and after), measures and returns the figures.
	 */
	public static Result measure(int port, RedisStats stats) {
		stats.flushAll();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
		factory.afterPropertiesSet();
		factory.start();
		try (RedisLockProvider provider = new RedisLockProvider(factory, RedisLockSettings.defaults())) {
			StringRedisTemplate redis = new StringRedisTemplate(factory);
			released(provider, redis);
			List<Lease> held = new ArrayList<>();
			for (int i = 0; i < HELD; i++) {
				held.add(provider.tryAcquire(new LockRequest("held:" + i, "token-" + i, Duration.ofMinutes(5),
						LockMode.EXCLUSIVE, 1, OWNER)).orElseThrow());
			}
			long keys = redis.execute((RedisCallback<Long>) connection -> connection.serverCommands().dbSize());
			Map<String, Long> before = stats.commandCalls();
			int found = provider.status(StatusQuery.held()).size();
			Map<String, Long> calls = RedisStats.delta(before, stats.commandCalls());
			double status = median(() -> provider.status(StatusQuery.held()).size());
			double scan = median(() -> scanPass(redis, null));
			double matchScan = median(() -> scanPass(redis, "distlock:\\{*}"));
			held.forEach(Lease::release);
			return new Result(status, scan, matchScan, found, keys, calls.getOrDefault("scan", 0L),
					calls.getOrDefault("evalsha", 0L));
		}
		finally {
			factory.destroy();
			stats.flushAll();
		}
	}

	/**
	 * Runs the measurement alone on a fresh server and prints the figures.
	 */
	public static void main(String[] args) {
		try (BenchmarkRedisServer server = BenchmarkRedisServer.start();
				RedisStats stats = new RedisStats("redis://127.0.0.1:" + server.port())) {
			Result result = measure(server.port(), stats);
			System.out.printf("status(HELD), %d released keys + %d held (%d keys): %.1f ms; one SCAN pass: %.1f ms "
					+ "(with status's MATCH: %.1f ms); ratio %.2f; found %d; per status: %d SCAN, %d EVALSHA "
					+ "(Redis %s)%n", RELEASED, HELD, result.keys(), result.statusMillis(), result.scanMillis(),
					result.matchScanMillis(), result.ratio(),
					result.found(), result.scanCalls(), result.scriptCalls(), stats.version());
		}
		System.exit(0);
	}

	/**
	 * The first hundred released keys go through a real acquire and release; the rest are written as the acquire
	 * script writes a fence hash, pipelined, so filling the keyspace takes seconds, not minutes.
	 */
	private static void released(RedisLockProvider provider, StringRedisTemplate redis) {
		for (int i = 0; i < 100; i++) {
			provider.tryAcquire(new LockRequest("order:" + i, "t", Duration.ofSeconds(10), LockMode.EXCLUSIVE, 1, OWNER))
				.orElseThrow()
				.release();
		}
		for (int from = 100; from < RELEASED; from += 10_000) {
			int start = from;
			redis.executePipelined((RedisCallback<Object>) connection -> {
				for (int i = start; i < Math.min(start + 10_000, RELEASED); i++) {
					connection.hashCommands()
						.hMSet(bytes("distlock:{order:" + i + "}:fence"), Map.of(bytes("n"),
								bytes(String.valueOf(1_700_000_000_000_000L + i)), bytes("owner"), bytes("benchmarks"),
								bytes("host"), bytes("localhost"), bytes("at"), bytes("1700000000000"), bytes("mode"),
								bytes("x")));
				}
				return null;
			});
		}
	}

	/** One SCAN pass over the whole keyspace, the same page size, MATCH if given; returns the keys seen. */
	private static long scanPass(StringRedisTemplate redis, @Nullable String match) {
		ScanOptions.ScanOptionsBuilder options = ScanOptions.scanOptions().count(SCAN_COUNT);
		if (match != null) {
			options.match(match);
		}
		return redis.execute((RedisCallback<Long>) connection -> {
			long seen = 0;
			try (Cursor<byte[]> cursor = connection.keyCommands().scan(options.build())) {
				while (cursor.hasNext()) {
					cursor.next();
					seen++;
				}
			}
			return seen;
		});
	}

	/** The median of {@link #RUNS} timed runs after two untimed ones, in milliseconds. */
	private static double median(LongSupplier run) {
		run.getAsLong();
		run.getAsLong();
		double[] millis = new double[RUNS];
		for (int i = 0; i < RUNS; i++) {
			long start = System.nanoTime();
			run.getAsLong();
			millis[i] = (System.nanoTime() - start) / 1e6;
		}
		Arrays.sort(millis);
		return millis[RUNS / 2];
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
