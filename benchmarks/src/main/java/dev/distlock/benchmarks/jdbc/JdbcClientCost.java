package dev.distlock.benchmarks.jdbc;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import dev.distlock.benchmarks.harness.LockClient;

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

	private static final com.sun.management.ThreadMXBean THREADS = (com.sun.management.ThreadMXBean) ManagementFactory
		.getThreadMXBean();

	private static final com.sun.management.OperatingSystemMXBean OS = (com.sun.management.OperatingSystemMXBean) ManagementFactory
		.getOperatingSystemMXBean();

	private JdbcClientCost() {
	}

	/** Per cycle: caller bytes and CPU ns (mean over the threads), JVM CPU ns, server CPU ns, and cycles per second. */
	record Cost(double callerBytes, double callerCpuNanos, double processCpuNanos, double serverCpuNanos,
			double cyclesPerSecond) {
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
							Cost cost = measure(arm, database, threads, warmup, cycles, "cost" + round + ":" + threads);
							System.out.printf(Locale.ROOT, "%-55s %7d %5d %10.0f %12.0f %12.0f %12.0f %10.0f%n",
									arm.name(), threads, round, cost.callerBytes(), cost.callerCpuNanos(),
									cost.processCpuNanos(), cost.serverCpuNanos(), cost.cyclesPerSecond());
						}
					}
				}
			}
		}
	}

	static Cost measure(JdbcArm arm, BenchmarkDatabase database, int threads, int warmup, int cycles, String keyPrefix)
			throws Exception {
		try (LockClient client = arm.newClient()) {
			CyclicBarrier warmed = new CyclicBarrier(threads + 1);
			CyclicBarrier done = new CyclicBarrier(threads + 1);
			long[] bytes = new long[threads];
			long[] cpu = new long[threads];
			AtomicReference<Throwable> failure = new AtomicReference<>();
			List<Thread> workers = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int index = t;
				String key = keyPrefix + ":" + arm.name().hashCode() + ":u" + t;
				Thread worker = new Thread(() -> {
					try {
						for (int i = 0; i < warmup; i++) {
							client.unlock(client.lock(key));
						}
						warmed.await();
						long bytesBefore = THREADS.getCurrentThreadAllocatedBytes();
						long cpuBefore = THREADS.getCurrentThreadCpuTime();
						for (int i = 0; i < cycles; i++) {
							client.unlock(client.lock(key));
						}
						cpu[index] = THREADS.getCurrentThreadCpuTime() - cpuBefore;
						bytes[index] = THREADS.getCurrentThreadAllocatedBytes() - bytesBefore;
						done.await();
					}
					catch (Throwable ex) {
						failure.compareAndSet(null, ex);
						warmed.reset();
						done.reset();
					}
				}, "cost-" + t);
				workers.add(worker);
				worker.start();
			}
			warmed.await();
			long processCpuBefore = OS.getProcessCpuTime();
			long serverCpuBefore = database.serverCpuNanos();
			long start = System.nanoTime();
			done.await();
			long elapsed = System.nanoTime() - start;
			long processCpu = OS.getProcessCpuTime() - processCpuBefore;
			long serverCpu = database.serverCpuNanos() - serverCpuBefore;
			for (Thread worker : workers) {
				worker.join();
			}
			if (failure.get() != null) {
				throw new IllegalStateException(failure.get());
			}
			double total = (double) threads * cycles;
			long callerBytes = 0;
			long callerCpu = 0;
			for (int t = 0; t < threads; t++) {
				callerBytes += bytes[t];
				callerCpu += cpu[t];
			}
			return new Cost(callerBytes / total, callerCpu / total, processCpu / total, serverCpu / total,
					total * 1e9 / elapsed);
		}
	}

}
