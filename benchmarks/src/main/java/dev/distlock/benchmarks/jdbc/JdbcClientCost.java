package dev.distlock.benchmarks.jdbc;

import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

import dev.distlock.benchmarks.harness.CycleCost;

/**
 * Cost of one uncontended JDBC cycle, exact rather than timed: bytes allocated and CPU time per cycle on the calling
 * threads ({@code ThreadMXBean}), the whole JVM's CPU over the same cycles (the statement watchdog and the driver's
 * threads included), and the database server's CPU ({@code /proc}), for the floor, the provider alone and the
 * template arms, each with one client (one pool) shared by the threads, each thread on its own key. Load moves these
 * figures far less than throughput. Run with {@code java -cp benchmarks.jar dev.distlock.benchmarks.jdbc.JdbcClientCost};
 * {@code -Dcost.databases=postgres,mariadb}, {@code -Dcost.threads=1,8}, {@code -Dcost.warmup=3000} and
 * {@code -Dcost.cycles=6000} (per thread), {@code -Dcost.rounds=2}.
 */
public final class JdbcClientCost {

	private JdbcClientCost() {
	}

	public static void main(String[] args) throws Exception {
		int warmup = Integer.getInteger("cost.warmup", 3_000);
		int cycles = Integer.getInteger("cost.cycles", 6_000);
		int rounds = Integer.getInteger("cost.rounds", 2);
		String[] threadCounts = System.getProperty("cost.threads", "1,8").split(",");
		for (String name : System.getProperty("cost.databases", "postgres,mariadb").split(",")) {
			Supplier<BenchmarkDatabase> start = name.trim().equals("postgres") ? BenchmarkDatabase::postgres
					: BenchmarkDatabase::mariadb;
			try (BenchmarkDatabase database = start.get()) {
				List<JdbcArm> arms = List.of(new RawJdbcArm(database, 8), new DistlockJdbcProviderArm(database, 8),
						new DistlockJdbcArm(database, 8));
				arms.forEach(JdbcArm::createSchema);
				System.out.println(database.description());
				System.out.printf("%-55s %7s %5s %10s %12s %12s %12s %10s%n", "arm", "threads", "round", "caller B",
						"caller CPU ns", "JVM CPU ns", "server ns", "cycles/s");
				for (String count : threadCounts) {
					int threads = Integer.parseInt(count.trim());
					for (int round = 1; round <= rounds; round++) {
						for (JdbcArm arm : arms) {
							CycleCost.Cost cost = CycleCost.measure(arm, threads, warmup, cycles, "cost" + round + ":" + threads, () -> {
								long before = database.serverCpuNanos();
								return () -> database.serverCpuNanos() - before;
							});
							System.out.printf(Locale.ROOT, "%-55s %7d %5d %10.0f %12.0f %12.0f %12.0f %10.0f%n",
									arm.name(), threads, round, cost.callerBytes(), cost.callerCpuNanos(),
									cost.processCpuNanos(), cost.probe(), cost.cyclesPerSecond());
						}
					}
				}
			}
		}
	}

}
