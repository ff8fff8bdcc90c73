package dev.distlock.benchmarks.jdbc;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import dev.distlock.benchmarks.harness.Contention;
import dev.distlock.benchmarks.harness.ContentionResult;

/**
 * Where the work of K clients on one key goes, for one arm: the suite's contention figures (cycles per second,
 * hand-off p50 and p99, how many cycles were hand-offs, starved clients, overlaps, and the wait's p99 and maximum),
 * the database server's CPU and the whole JVM's CPU per cycle, the CPU of the JVM's threads that
 * outlive the window by name (digits folded, so the listeners of 32 clients are one row; the clients' own threads end
 * with the window and are only in the JVM's total), and each statement's calls per cycle with the server's mean time
 * per call ({@link BenchmarkDatabase#statementTimes}). On a fresh server of its own, one arm per run. Run with
 * {@code java -Dcontention.arm=distlock -Dcontention.clients=32 -Dcontention.seconds=12 -Dcontention.database=postgres
 * -cp 'benchmarks.jar:lib/*' dev.distlock.benchmarks.jdbc.JdbcContentionCost} ({@code -Dcontention.warmup=<seconds>},
 * 3 by default, is the warm-up before the window); the arms are {@code floor},
 * {@code distlock} and {@code integration}, the databases {@code postgres} and {@code mariadb}.
 */
public final class JdbcContentionCost {

	private JdbcContentionCost() {
	}

	public static void main(String[] args) {
		String armName = System.getProperty("contention.arm", "distlock");
		int clients = Integer.getInteger("contention.clients", 32);
		Duration window = Duration.ofSeconds(Integer.getInteger("contention.seconds", 12));
		boolean postgres = !System.getProperty("contention.database", "postgres").equals("mariadb");
		try (BenchmarkDatabase database = postgres ? BenchmarkDatabase.postgres() : BenchmarkDatabase.mariadb()) {
			JdbcArm arm = switch (armName) {
				case "floor" -> new RawJdbcArm(database, 8);
				case "integration" -> new IntegrationJdbcArm(database, 8);
				case "distlock" -> new DistlockJdbcArm(database, 8);
				default -> throw new IllegalArgumentException("-Dcontention.arm takes floor, distlock or integration");
			};
			arm.createSchema();
			ThreadMXBean threads = ManagementFactory.getThreadMXBean();
			com.sun.management.OperatingSystemMXBean process = (com.sun.management.OperatingSystemMXBean) ManagementFactory
				.getOperatingSystemMXBean();
			Map<Long, Long> threadsBefore = new HashMap<>();
			long[] before = new long[2];
			long[] after = new long[2];
			Map<String, Long> byName = new TreeMap<>();
			ContentionResult result = Contention.run(arm::newClient, clients, "cost:c" + clients, Duration.ofSeconds(Integer.getInteger("contention.warmup", 3)),
					window, () -> {
						for (long id : threads.getAllThreadIds()) {
							threadsBefore.put(id, threads.getThreadCpuTime(id));
						}
						database.resetStatementTimes();
						before[0] = database.serverCpuNanos();
						before[1] = process.getProcessCpuTime();
					}, () -> {
						after[0] = database.serverCpuNanos();
						after[1] = process.getProcessCpuTime();
						for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
							if (info != null) {
								long cpu = threads.getThreadCpuTime(info.getThreadId())
										- threadsBefore.getOrDefault(info.getThreadId(), 0L);
								byName.merge(info.getThreadName().replaceAll("[0-9]+", "#"), cpu, Long::sum);
							}
						}
					});
			double cycles = Math.max(1, result.cycles());
			System.out.println(database.description() + ", " + arm.name() + ", " + clients + " clients on one key, "
					+ window.toSeconds() + " s");
			System.out.printf(Locale.ROOT, "%,.0f cycles/s, hand-off p50 %.3f ms, p99 %.3f ms%n",
					result.cyclesPerSecond(), result.handOffMillis(50), result.handOffMillis(99));
			System.out.printf(Locale.ROOT,
					"%,d hand-offs in %,d cycles, %d starved, %d overlaps, wait p99 %.1f ms, max %.1f ms%n",
					result.handOff().getTotalCount(), result.cycles(), result.starved(), result.violations(),
					result.waitMillis(99), result.waitMillis(100));
			System.out.printf(Locale.ROOT, "server CPU %.0f us per cycle, JVM CPU %.0f us per cycle%n",
					(after[0] - before[0]) / cycles / 1e3, (after[1] - before[1]) / cycles / 1e3);
			System.out.println("JVM threads that outlive the window, CPU per cycle:");
			byName.entrySet()
				.stream()
				.filter(entry -> entry.getValue() > 0)
				.sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
				.forEach(entry -> System.out.printf(Locale.ROOT, "  %8.1f us  %s%n", entry.getValue() / cycles / 1e3,
						entry.getKey()));
			System.out.println("Statements per cycle (server's mean time per call):");
			database.statementTimes((int) Math.min(Integer.MAX_VALUE, result.cycles()))
				.forEach((statement, figures) -> System.out.printf(Locale.ROOT, "  %6.2f  (%7.1f us)  %s%n", figures[0],
						figures[1], statement));
		}
	}

}
