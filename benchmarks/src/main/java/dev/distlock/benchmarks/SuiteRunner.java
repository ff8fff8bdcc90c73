package dev.distlock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.distlock.benchmarks.harness.ConnectionGauge;
import dev.distlock.benchmarks.harness.Contention;
import dev.distlock.benchmarks.harness.ContentionResult;
import dev.distlock.benchmarks.harness.LockArm;
import dev.distlock.benchmarks.harness.LockClient;
import dev.distlock.benchmarks.harness.MemoryPerLock;
import dev.distlock.benchmarks.jdbc.BenchmarkDatabase;
import dev.distlock.benchmarks.jdbc.JdbcArm;
import dev.distlock.benchmarks.harness.Uncontended;
import dev.distlock.benchmarks.redis.RedisStats;

/**
 * Runs every workload on a list of arms. Throughput figures are interleaved across arms (round-robin rounds, each
 * starting at a different arm, and each contention level for all arms before the next), so a busy neighbour on a shared
 * machine and an arm's place in the round weigh on every arm alike and the ratios stay fair. An arm that fails keeps
 * its row, saying why, and the others go on.
 */
final class SuiteRunner {

	private static final Log logger = LogFactory.getLog(SuiteRunner.class);

	/**
	 * The fewest interleaved rounds the uncontended window is split into; a window of more seconds is split into rounds
	 * of one second each, so a longer window averages more places in the round and more moments of the host's load
	 * instead of longer stretches of the same few.
	 */
	private static final int MIN_ROUNDS = 3;

	private final Settings settings;

	private final @Nullable RedisStats redisStats;

	private final LongSupplier storeBytes;

	private final Runnable reset;

	private @Nullable BenchmarkDatabase database;

	/**
	 * A runner; {@code redisStats} and {@code storeBytes} read the store's counters (null and -1 when it has none),
	 * {@code reset} empties the store between phases.
	 */
	SuiteRunner(Settings settings, @Nullable RedisStats redisStats, LongSupplier storeBytes, Runnable reset) {
		this.settings = settings;
		this.redisStats = redisStats;
		this.storeBytes = storeBytes;
		this.reset = reset;
	}

	/**
	 * The JDBC server the arms run on: its statement counts and times, and its open connections as each contention
	 * window begins.
	 */
	SuiteRunner database(BenchmarkDatabase server) {
		this.database = server;
		return this;
	}

	List<ArmResult> run(List<LockArm> arms) {
		List<ArmResult> results = new ArrayList<>();
		List<@Nullable LockClient> clients = new ArrayList<>();
		for (LockArm arm : arms) {
			ArmResult result = new ArmResult(arm.name(), arm.renewing());
			results.add(result);
			LockClient client = null;
			try {
				client = arm.newClient();
				Uncontended.cyclesPerSecond(client, prefix(arm, arms) + ":warm", 2, settings.warmup());
			}
			catch (RuntimeException ex) {
				failed(result, ex);
				close(client);
				client = null;
			}
			clients.add(client);
		}
		try {
			Progress.say("  uncontended, " + rounds() + " interleaved rounds");
			uncontended(arms, results, clients, 1);
			uncontended(arms, results, clients, 8);
			for (int i = 0; i < arms.size(); i++) {
				LockClient client = clients.get(i);
				if (client != null) {
					storeFigures(client, prefix(arms.get(i), arms), results.get(i));
				}
			}
		}
		finally {
			clients.forEach(SuiteRunner::close);
		}
		for (int count : settings.contenders()) {
			Progress.say("  " + count + " clients on one key");
			for (int i = 0; i < arms.size(); i++) {
				if (!results.get(i).failed()) {
					contention(arms.get(i), prefix(arms.get(i), arms), count, results.get(i));
				}
			}
		}
		return results;
	}

	private void uncontended(List<LockArm> arms, List<ArmResult> results, List<@Nullable LockClient> clients,
			int threads) {
		double[] sums = new double[arms.size()];
		int count = arms.size();
		int rounds = rounds();
		for (int round = 0; round < rounds; round++) {
			// Each round starts a third of the list further on. An arm's figure depends on its place in the round (in
			// two scratch runs the arm right after the floor ran 22-23% slower than the same arm two places later,
			// whichever arm it was), so no arm keeps one place: each takes places spread over the round.
			for (int slot = 0; slot < count; slot++) {
				int i = (slot + round * count / rounds) % count;
				LockClient client = clients.get(i);
				if (client == null || results.get(i).failed()) {
					continue;
				}
				try {
					ConnectionGauge gauge = arms.get(i).connections();
					if (gauge != null) {
						gauge.mark();
					}
					long scans = seqScans(arms.get(i));
					sums[i] += Uncontended.cyclesPerSecond(client, prefix(arms.get(i), arms), threads,
							settings.window().dividedBy(rounds));
					countScans(arms.get(i), results.get(i), threads + (threads == 1 ? " thread" : " threads"), scans);
					if (gauge != null) {
						ArmResult.Connections seen = new ArmResult.Connections(gauge.maxInUse(), gauge.maxWaitMillis(),
								-1, Double.NaN);
						results.get(i).uncontendedConnections.merge(threads, seen, ArmResult.Connections::max);
					}
				}
				catch (RuntimeException ex) {
					failed(results.get(i), ex);
				}
			}
		}
		for (int i = 0; i < arms.size(); i++) {
			ArmResult result = results.get(i);
			if (!result.failed()) {
				if (threads == 1) {
					result.oneThread = sums[i] / rounds;
				}
				else {
					result.eightThreads = sums[i] / rounds;
				}
				Progress.say(String.format("    %s: %,.0f/s (%d thread(s))", result.name, sums[i] / rounds, threads));
			}
		}
	}

	/** The uncontended window's rounds: one a second, at least {@link #MIN_ROUNDS}. */
	private int rounds() {
		return (int) Math.max(MIN_ROUNDS, settings.window().toSeconds());
	}

	private void storeFigures(LockClient client, String keyPrefix, ArmResult result) {
		if (result.failed()) {
			return;
		}
		try {
			reset.run();
			if (redisStats != null) {
				Map<String, Long> before = redisStats.commandCalls();
				Map<String, Long> microsBefore = redisStats.commandMicros();
				Uncontended.cycles(client, keyPrefix + ":cmd", settings.commandCycles());
				Map<String, Long> micros = RedisStats.delta(microsBefore, redisStats.commandMicros());
				Map<String, Long> delta = RedisStats.delta(before, redisStats.commandCalls());
				double cycles = settings.commandCycles();
				delta.forEach((name, calls) -> {
					result.commandBreakdown.put(name, calls / cycles);
					result.microsPerCall.put(name, micros.getOrDefault(name, 0L) / (double) calls);
				});
				result.commandsPerCycle = sum(delta) / cycles;
			}
			if (database != null) {
				int cycles = settings.commandCycles();
				database.resetStatementTimes();
				long before = database.statements();
				Uncontended.cycles(client, keyPrefix + ":cmd", cycles);
				result.commandsPerCycle = (database.statements() - before) / (double) cycles;
				database.statementTimes(cycles).forEach((statement, figures) -> {
					result.commandBreakdown.put(statement, figures[0]);
					result.microsPerCall.put(statement, figures[1]);
				});
			}
			reset.run();
			result.memory = MemoryPerLock.measure(client, keyPrefix + ":mem", settings.heldLocks(), storeBytes);
		}
		catch (RuntimeException ex) {
			failed(result, ex);
		}
	}

	private void contention(LockArm arm, String keyPrefix, int count, ArmResult result) {
		try {
			reset.run();
			AtomicReference<Map<String, Long>> before = new AtomicReference<>();
			ConnectionGauge gauge = arm.connections();
			long[] server = { -1 };
			long[] statementCount = { 0, 0 };
			long[] scans = { -1 };
			ContentionResult contention = Contention.run(arm::newClient, count, keyPrefix + ":c" + count,
					settings.contentionWarmup(), settings.window(), () -> {
						if (redisStats != null && count == 8) {
							before.set(redisStats.commandCalls());
						}
						if (gauge != null) {
							server[0] = database != null ? database.serverConnections() : -1;
							gauge.mark();
						}
						if (database != null) {
							statementCount[0] = database.statements();
							scans[0] = seqScans(arm);
						}
					}, () -> {
						if (database != null) {
							statementCount[1] = database.statements();
						}
					});
			countScans(arm, result, count + " clients", scans[0]);
			result.contention.put(count, contention);
			if (gauge != null) {
				// The statements of each client's last cycle, which ends after the window, are counted too.
				double perAcquire = database == null ? Double.NaN
						: (statementCount[1] - statementCount[0]) / (double) Math.max(1, contention.cycles());
				result.contentionConnections.put(count, new ArmResult.Connections(gauge.maxInUse(),
						gauge.maxWaitMillis(), server[0], perAcquire));
			}
			if (before.get() != null && redisStats != null && contention.cycles() > 0) {
				result.commandsPerContendedCycle = sum(RedisStats.delta(before.get(), redisStats.commandCalls()))
						/ (double) contention.cycles();
			}
			Progress.say(String.format("    %s: %,.0f/s, hand-off p50 %.3f ms, wait max %.1f ms", result.name,
					contention.cyclesPerSecond(), contention.handOffMillis(50), contention.waitMillis(100)));
		}
		catch (RuntimeException ex) {
			failed(result, ex);
		}
	}

	/** The sequential scans of the arm's lock table so far, or -1 when not counted (not JDBC, not PostgreSQL). */
	private long seqScans(LockArm arm) {
		return database != null && arm instanceof JdbcArm jdbc ? database.seqScans(jdbc.table()) : -1;
	}

	/**
	 * Adds the scans since {@code before} to the phase's count. Backends report them within seconds, so a phase may
	 * count a few of the one before it; what matters is whether they run to thousands.
	 */
	private void countScans(LockArm arm, ArmResult result, String phase, long before) {
		long now = seqScans(arm);
		if (before >= 0 && now >= 0) {
			result.seqScans.merge(phase, now - before, Long::sum);
		}
	}

	private static String prefix(LockArm arm, List<LockArm> arms) {
		return "bench:arm" + arms.indexOf(arm);
	}

	private static long sum(Map<String, Long> calls) {
		return calls.values().stream().mapToLong(Long::longValue).sum();
	}

	private static void close(@Nullable LockClient client) {
		if (client != null) {
			try {
				client.close();
			}
			catch (RuntimeException ex) {
				logger.debug("Closing a client failed", ex);
			}
		}
	}

	private static void failed(ArmResult result, RuntimeException ex) {
		Throwable root = ex;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		result.error = root.getClass().getSimpleName() + ": " + root.getMessage();
		Progress.say("    " + result.name + " failed: " + result.error);
		logger.debug("Arm '" + result.name + "' failed", ex);
	}

}
