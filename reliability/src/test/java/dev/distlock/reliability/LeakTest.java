package dev.distlock.reliability;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.mongo.testsupport.MongoTestServer;
import dev.distlock.redis.testsupport.RedisServerProcess;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Thousands of acquire/release cycles, contended ones and skipped ones included, must leave no trace: live threads,
 * Redis client connections, pub/sub channels and patterns, and the template's held-lock registry end no higher than
 * they were after a warm-up (the held-lock registry at zero).
 */
class LeakTest {

	private static final int CYCLES = Reports.intProperty("reliability.leakCycles", 10_000);

	private static final int THREADS = 4;

	// Four threads over two keys: most cycles contend, and every tenth is a no-wait attempt that may skip.
	private static final int KEYS = 2;

	private static final LockOptions WAIT = LockOptions.builder().timeout(Duration.ofSeconds(5))
		.delay(Duration.ofMillis(2)).waitUpTo(Duration.ofSeconds(20)).build();

	private static final LockOptions NO_WAIT = LockOptions.builder().timeout(Duration.ofSeconds(5)).build();

	@Test
	void redisCyclesLeakNoThreadsConnectionsChannelsOrRegistryEntries() throws Exception {
		try (RedisServerProcess redis = RedisServerProcess.startOnFreePort(); Stores stores = new Stores()) {
			LockTemplate template = stores.redis(redis);
			// A separate plain Lettuce client for measuring: it adds the same one connection before and after.
			RedisClient probeClient = RedisClient.create("redis://127.0.0.1:" + redis.port());
			try (StatefulRedisConnection<String, String> probe = probeClient.connect()) {
				RedisCommands<String, String> commands = probe.sync();
				Map<String, Supplier<Long>> gauges = new LinkedHashMap<>();
				gauges.put("threads", LeakTest::liveThreads);
				gauges.put("heldLocks", () -> (long) template.heldLocks().size());
				gauges.put("clientConnections", () -> commands.clientList().lines().filter(l -> !l.isBlank()).count());
				gauges.put("pubsubChannels", () -> (long) commands.pubsubChannels().size());
				gauges.put("pubsubPatterns", commands::pubsubNumpat);
				cyclesLeakNothing("redis", template, gauges, gauges.get("pubsubChannels"));
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
			gauges.put("heldLocks", () -> (long) template.heldLocks().size());
			cyclesLeakNothing("mongo", template, gauges, null);
		}
	}

	// The sampled gauge, if any, is also watched during the run for its peak.
	private static void cyclesLeakNothing(String store, LockTemplate template, Map<String, Supplier<Long>> gauges,
			@Nullable Supplier<Long> sampled) throws InterruptedException {
		run(template, store + "-leak", 400);
		Map<String, Long> before = read(gauges);
		long start = System.nanoTime();
		PeakSampler peak = sampled != null ? PeakSampler.start(sampled) : null;
		int skipped = run(template, store + "-leak", CYCLES);
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		if (peak != null) {
			// Shows the probe does see the waiters' channels while they exist, so an unchanged count means something.
			Reports.figure(store + ".leak.pubsubChannelsPeakDuringRun", peak.stop());
		}
		// Give asynchronous unsubscribes and pool returns a moment; a real leak does not settle.
		Map<String, Long> after = settle(gauges, before, Duration.ofSeconds(3));
		Reports.figure(store + ".leak.cycles", CYCLES + " (" + THREADS + " threads on " + KEYS + " keys, " + skipped
				+ " contended no-wait attempts skipped) in " + took.toMillis() + " ms");
		for (String gauge : gauges.keySet()) {
			Reports.figure(store + ".leak." + gauge, before.get(gauge) + " -> " + after.get(gauge) + " (delta "
					+ (after.get(gauge) - before.get(gauge)) + ")");
		}
		// No gauge may grow. One may shrink: a thread left over from an earlier test class can end meanwhile.
		for (String gauge : gauges.keySet()) {
			assertThat(after.get(gauge)).as(gauge).isLessThanOrEqualTo(before.get(gauge));
		}
		assertThat(after.get("heldLocks")).isZero();
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

	private static Map<String, Long> settle(Map<String, Supplier<Long>> gauges, Map<String, Long> before,
			Duration within) throws InterruptedException {
		long deadline = System.nanoTime() + within.toNanos();
		Map<String, Long> now = read(gauges);
		while (grew(now, before) && System.nanoTime() < deadline) {
			Thread.sleep(100);
			now = read(gauges);
		}
		return now;
	}

	private static boolean grew(Map<String, Long> now, Map<String, Long> before) {
		return now.entrySet().stream().anyMatch(entry -> entry.getValue() > before.get(entry.getKey()));
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
