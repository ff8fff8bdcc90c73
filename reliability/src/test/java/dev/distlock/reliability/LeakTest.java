package dev.distlock.reliability;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockOperations;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.jdbc.JdbcLockSettings;
import dev.distlock.jdbc.testsupport.JdbcStoreInspector;
import dev.distlock.jdbc.testsupport.TestDatabase;
import dev.distlock.mongo.testsupport.MongoTestServer;
import dev.distlock.redis.RedisLockSettings;
import dev.distlock.redis.testsupport.RedisServerProcess;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Thousands of acquire/release cycles, contended ones and skipped ones included, must leave no trace: live threads,
 * Redis client connections, pub/sub channels and patterns, and the template's held-lock registry end no higher than
 * they were after a warm-up whose lingering channels have gone. The held-lock registry and the provider's pub/sub
 * channels must be back at exactly zero. On the JDBC stores no pooled connection stays out but PostgreSQL's one
 * LISTEN connection (none once the provider closed), and plain exclusive locks leave no row after their release.
 */
class LeakTest {

	private static final int CYCLES = Reports.intProperty("reliability.leakCycles", 10_000);

	private static final int THREADS = 4;

	// Four threads over two keys: most cycles contend, and every tenth is a no-wait attempt that may skip.
	private static final int KEYS = 2;

	private static final LockOptions WAIT = LockOptions.builder().timeout(Duration.ofSeconds(5))
		.delay(Duration.ofMillis(2)).waitUpTo(Duration.ofSeconds(20)).build();

	private static final LockOptions NO_WAIT = LockOptions.builder().timeout(Duration.ofSeconds(5)).build();

	/**
	 * The uncontended cycles of the JDBC stores: each thread on a key of its own, so no acquire waits. lock-jdbc deletes
	 * the row of such a plain exclusive lock on release when at least four times its 2 s floor of the lease is left
	 * (the retry must end within the lease); a waiter's mark, or a shorter lease, keeps the row for the purger.
	 */
	private static final LockOptions PLAIN = LockOptions.builder().timeout(Duration.ofSeconds(30)).build();

	/**
	 * How long a gauge may take to come back. lock-redis keeps an idle release channel subscribed for 1 s and sweeps
	 * every 0.5 s, so channels are gone within about 1.5 s; a leaked channel never goes.
	 */
	private static final Duration SETTLE = Duration.ofSeconds(5);

	@Test
	void redisCyclesLeakNoThreadsConnectionsChannelsOrRegistryEntries() throws Exception {
		try (RedisServerProcess redis = RedisServerProcess.startOnFreePort(); Stores stores = new Stores()) {
			LockTemplate template = stores.redis(redis);
			// The provider's release channels: <namespace>:{<key>}:released.
			String channels = RedisLockSettings.defaults().namespace() + ":*";
			// A separate plain Lettuce client for measuring: it adds the same one connection before and after.
			RedisClient probeClient = RedisClient.create("redis://127.0.0.1:" + redis.port());
			try (StatefulRedisConnection<String, String> probe = probeClient.connect()) {
				RedisCommands<String, String> commands = probe.sync();
				Map<String, Supplier<Long>> gauges = new LinkedHashMap<>();
				gauges.put("threads", LeakTest::liveThreads);
				gauges.put("heldLocks", () -> (long) new LockOperations(template).heldLocks().size());
				gauges.put("clientConnections", () -> commands.clientList().lines().filter(l -> !l.isBlank()).count());
				gauges.put("pubsubChannels", () -> (long) commands.pubsubChannels(channels).size());
				gauges.put("pubsubPatterns", commands::pubsubNumpat);
				cyclesLeakNothing("redis", template, gauges, Set.of("heldLocks", "pubsubChannels"), "pubsubChannels");
			}
			finally {
				probeClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
			}
		}
	}

	@Test
	void mongoCyclesLeakNoThreadsOrRegistryEntries() throws Exception {
		try (MongoTestServer mongo = MongoTestServer.start(); Stores stores = new Stores()) {
			LockTemplate template = stores.mongo(mongo);
			Map<String, Supplier<Long>> gauges = new LinkedHashMap<>();
			gauges.put("threads", LeakTest::liveThreads);
			gauges.put("heldLocks", () -> (long) new LockOperations(template).heldLocks().size());
			cyclesLeakNothing("mongo", template, gauges, Set.of("heldLocks"), null);
		}
	}

	@Test
	void postgresqlCyclesLeakNoThreadsConnectionsListenersRowsOrRegistryEntries() throws Exception {
		TestDatabase database = TestDatabase.POSTGRESQL;
		DataSource probe = database.dataSource();
		// The LISTEN connection, listening or not: once no waiter needs notifications it UNLISTENs its channels one by
		// one and stays borrowed until the provider closes; its last statement before the pool has it back is
		// UNLISTEN *.
		String listening = "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'distlock-leak-postgresql'"
				+ " AND (query LIKE 'LISTEN %' OR (query LIKE 'UNLISTEN %' AND query <> 'UNLISTEN *'))";
		jdbcCyclesLeakNothing("postgresql", database, () -> count(probe, listening));
	}

	@Test
	void mariadbCyclesLeakNoThreadsConnectionsRowsOrRegistryEntries() throws Exception {
		jdbcCyclesLeakNothing("mariadb", TestDatabase.MARIADB, null);
	}

	/**
	 * The contended cycles on the provider's own pool, whose only connection out while the provider is open is
	 * PostgreSQL's LISTEN connection (one per provider, kept until it closes, counted by {@code listening}); then
	 * uncontended plain cycles, which leave no row; then, with the provider closed, no connection out at all.
	 */
	private static void jdbcCyclesLeakNothing(String store, TestDatabase database, @Nullable Supplier<Long> listening)
			throws Exception {
		JdbcStoreInspector inspector = new JdbcStoreInspector(database.dataSource(), database.dialect(),
				JdbcLockSettings.DEFAULT_TABLE);
		try (HikariDataSource pool = pool(store, database)) {
			Supplier<Long> active = () -> (long) pool.getHikariPoolMXBean().getActiveConnections();
			try (Stores stores = new Stores()) {
				LockTemplate template = stores.jdbc(database, pool);
				Map<String, Supplier<Long>> gauges = new LinkedHashMap<>();
				gauges.put("threads", LeakTest::liveThreads);
				gauges.put("heldLocks", () -> (long) new LockOperations(template).heldLocks().size());
				gauges.put("poolActiveBesidesListen",
						() -> active.get() - (listening != null ? listening.get() : 0));
				// The contended keys' rows: waiters' marks keep a key's row for the purger, one row per key at most.
				gauges.put("contendedKeyRows", () -> (long) inspector.rows(store + "-leak").size());
				if (listening != null) {
					gauges.put("listenConnections", listening);
				}
				long peak = cyclesLeakNothing(store, template, gauges, Set.of("heldLocks", "poolActiveBesidesListen"),
						listening != null ? "listenConnections" : null);
				assertThat(gauges.get("contendedKeyRows").get()).as("rows of the contended keys")
					.isLessThanOrEqualTo(KEYS);
				if (listening != null) {
					assertThat(peak).as("LISTEN connections at the peak of the run").isEqualTo(1);
					assertThat(listening.get()).as("LISTEN connections after the run").isEqualTo(1);
				}
				// Open connections may grow (a purge may need one more); a leaked one is active, not idle.
				Reports.figure(store + ".leak.poolTotalConnections", pool.getHikariPoolMXBean().getTotalConnections()
						+ " (at most " + pool.getMaximumPoolSize() + ")");
				long start = System.nanoTime();
				runPlain(template, store + "-plain", CYCLES / 10);
				Reports.figure(store + ".leak.plainCycles", CYCLES / 10 + " (" + THREADS + " threads, a key each) in "
						+ Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms");
				List<String> plainRows = inspector.rows(store + "-plain");
				Reports.figure(store + ".leak.plainRows", plainRows.size());
				assertThat(plainRows).as("rows of the plain exclusive locks after their release").isEmpty();
				assertThat(new LockOperations(template).heldLocks()).isEmpty();
			}
			// Closed, the provider gives the LISTEN connection back within one poll of its listener.
			Settled closed = settle(Map.of("poolActiveConnections", active), Set.of("poolActiveConnections"), null);
			Reports.figure(store + ".leak.poolActiveAfterClose", closed.values().get("poolActiveConnections") + " ("
					+ closed.took().toMillis() + " ms after the provider closed)");
			assertThat(closed.values().get("poolActiveConnections")).isZero();
			if (listening != null) {
				assertThat(listening.get()).as("LISTEN connections after the provider closed").isZero();
			}
		}
	}

	// Each thread acquires and releases a key of its own.
	private static void runPlain(LockTemplate template, String prefix, int cycles) throws InterruptedException {
		AtomicInteger failures = new AtomicInteger();
		List<Thread> threads = new ArrayList<>();
		for (int t = 0; t < THREADS; t++) {
			String key = prefix + ":" + t;
			Thread thread = new Thread(() -> {
				for (int i = 0; i < cycles / THREADS; i++) {
					try {
						template.acquire(key, PLAIN).release();
					}
					catch (RuntimeException ex) {
						failures.incrementAndGet();
					}
				}
			}, "leak-plain-" + t);
			thread.start();
			threads.add(thread);
		}
		for (Thread thread : threads) {
			thread.join();
		}
		assertThat(failures.get()).as("plain cycles that failed").isZero();
	}

	// The provider's own pool, named in PostgreSQL's pg_stat_activity, so the probe counts only its sessions.
	private static HikariDataSource pool(String store, TestDatabase database) {
		HikariConfig config = Stores.poolConfig(database, "distlock-leak-" + store, 10);
		if (database == TestDatabase.POSTGRESQL) {
			config.addDataSourceProperty("ApplicationName", "distlock-leak-" + store);
		}
		return new HikariDataSource(config);
	}

	private static long count(DataSource dataSource, String sql) {
		try (var connection = dataSource.getConnection(); var statement = connection.createStatement();
				var rs = statement.executeQuery(sql)) {
			rs.next();
			return rs.getLong(1);
		}
		catch (java.sql.SQLException ex) {
			throw new IllegalStateException(sql, ex);
		}
	}

	// Gauges named in zeroed must read exactly 0 before and after the run; the others must not grow. The sampled
	// gauge, if any, is also watched during the run for its peak, which is returned (-1 without one).
	private static long cyclesLeakNothing(String store, LockTemplate template, Map<String, Supplier<Long>> gauges,
			Set<String> zeroed, @Nullable String sampled) throws InterruptedException {
		run(template, store + "-leak", 400);
		// The warm-up's channels linger for a while: the baseline is taken once they are gone, not while they count.
		Settled baseline = settle(gauges, zeroed, null);
		Map<String, Long> before = baseline.values();
		Reports.figure(store + ".leak.baselineSettled", baseline.took().toMillis() + " ms after the warm-up");
		for (String gauge : zeroed) {
			assertThat(before.get(gauge)).as(gauge + " after the warm-up settled").isZero();
		}
		long start = System.nanoTime();
		PeakSampler peak = sampled != null ? PeakSampler.start(gauges.get(sampled)) : null;
		int skipped = run(template, store + "-leak", CYCLES);
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		long peakValue = -1;
		if (peak != null) {
			// Shows the probe does see what it counts while it exists, so an unchanged count means something.
			peakValue = peak.stop();
			Reports.figure(store + ".leak." + sampled + "PeakDuringRun", peakValue);
		}
		// Asynchronous unsubscribes and pool returns take a moment; a real leak does not settle.
		Settled end = settle(gauges, zeroed, before);
		Map<String, Long> after = end.values();
		Reports.figure(store + ".leak.cycles", CYCLES + " (" + THREADS + " threads on " + KEYS + " keys, " + skipped
				+ " contended no-wait attempts skipped) in " + took.toMillis() + " ms");
		Reports.figure(store + ".leak.settled", end.took().toMillis() + " ms after the run");
		for (String gauge : gauges.keySet()) {
			Reports.figure(store + ".leak." + gauge, before.get(gauge) + " -> " + after.get(gauge) + " (delta "
					+ (after.get(gauge) - before.get(gauge)) + ")");
		}
		// No gauge may grow. One may shrink: a thread left over from an earlier test class can end meanwhile.
		for (String gauge : gauges.keySet()) {
			assertThat(after.get(gauge)).as(gauge).isLessThanOrEqualTo(before.get(gauge));
		}
		for (String gauge : zeroed) {
			assertThat(after.get(gauge)).as(gauge).isZero();
		}
		return peakValue;
	}

	// Returns how many no-wait attempts found the key held and skipped.
	private static int run(LockTemplate template, String prefix, int cycles) throws InterruptedException {
		AtomicInteger skipped = new AtomicInteger();
		AtomicInteger failures = new AtomicInteger();
		List<Thread> threads = new ArrayList<>();
		for (int t = 0; t < THREADS; t++) {
			int offset = t;
			Thread thread = new Thread(() -> {
				for (int i = offset; i < cycles; i += THREADS) {
					String key = prefix + ":" + (i % KEYS);
					try {
						if (i % 10 == 0) {
							Optional<LockHandle> handle = template.tryAcquire(key, NO_WAIT);
							handle.ifPresentOrElse(LockHandle::release, skipped::incrementAndGet);
						}
						else {
							template.acquire(key, WAIT).release();
						}
					}
					catch (RuntimeException ex) {
						failures.incrementAndGet();
					}
				}
			}, "leak-" + t);
			thread.start();
			threads.add(thread);
		}
		for (Thread thread : threads) {
			thread.join();
		}
		assertThat(failures.get()).as("cycles that failed").isZero();
		return skipped.get();
	}

	// Polls, up to SETTLE, until every zeroed gauge reads 0 and, given a baseline, no gauge is above it. Returns the
	// last reading, which the caller asserts on, so a gauge that never settles fails there, naming itself.
	private static Settled settle(Map<String, Supplier<Long>> gauges, Set<String> zeroed,
			@Nullable Map<String, Long> baseline) throws InterruptedException {
		long start = System.nanoTime();
		long deadline = start + SETTLE.toNanos();
		Map<String, Long> now = read(gauges);
		while (!settled(now, zeroed, baseline) && System.nanoTime() < deadline) {
			Thread.sleep(100);
			now = read(gauges);
		}
		return new Settled(now, Duration.ofNanos(System.nanoTime() - start));
	}

	private static boolean settled(Map<String, Long> now, Set<String> zeroed, @Nullable Map<String, Long> baseline) {
		boolean zero = zeroed.stream().allMatch(gauge -> now.get(gauge) == 0);
		boolean grew = baseline != null
				&& now.entrySet().stream().anyMatch(entry -> entry.getValue() > baseline.get(entry.getKey()));
		return zero && !grew;
	}

	private static Map<String, Long> read(Map<String, Supplier<Long>> gauges) {
		Map<String, Long> values = new LinkedHashMap<>();
		gauges.forEach((name, gauge) -> values.put(name, gauge.get()));
		return values;
	}

	private static long liveThreads() {
		return ManagementFactory.getThreadMXBean().getThreadCount();
	}

	/**
	 * The last reading of every gauge, and how long the polling took.
	 */
	private record Settled(Map<String, Long> values, Duration took) {
	}

	/**
	 * Samples a gauge on a daemon thread and keeps its highest value.
	 */
	private static final class PeakSampler {

		private final Thread thread;

		private volatile long peak;

		private volatile boolean running = true;

		private PeakSampler(Supplier<Long> gauge) {
			this.thread = new Thread(() -> {
				while (running) {
					peak = Math.max(peak, gauge.get());
					try {
						Thread.sleep(20);
					}
					catch (InterruptedException ex) {
						return;
					}
				}
			}, "peak-sampler");
			this.thread.setDaemon(true);
		}

		static PeakSampler start(Supplier<Long> gauge) {
			PeakSampler sampler = new PeakSampler(gauge);
			sampler.thread.start();
			return sampler;
		}

		long stop() throws InterruptedException {
			running = false;
			thread.join();
			return peak;
		}

	}

}
