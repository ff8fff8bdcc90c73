package dev.distlock.benchmarks.redis;

import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;

import dev.distlock.benchmarks.harness.LockArm;
import dev.distlock.benchmarks.harness.CycleCost;

/**
 * Client cost of one uncontended cycle, exact rather than timed: bytes allocated and CPU time per cycle on the calling
 * threads ({@code ThreadMXBean}), and CPU and allocation of the whole JVM over the same cycles (Lettuce's event loop and
 * timer threads included), for the floor, the provider alone and the template arms (with and without fencing tokens), each with one client shared by
 * the threads, each thread on its own key. Load moves these figures far less than throughput. Run with
 * {@code java -cp benchmarks.jar dev.distlock.benchmarks.redis.ClientCost}; {@code -Dcost.threads=1,8},
 * {@code -Dcost.warmup=10000} and {@code -Dcost.cycles=20000} (per thread), {@code -Dcost.rounds=2}.
 */
public final class ClientCost {

	private static final com.sun.management.ThreadMXBean THREADS = CycleCost.THREADS;

	private ClientCost() {
	}

	public static void main(String[] args) throws Exception {
		int warmup = Integer.getInteger("cost.warmup", 10_000);
		int cycles = Integer.getInteger("cost.cycles", 20_000);
		int rounds = Integer.getInteger("cost.rounds", 2);
		String[] threadCounts = System.getProperty("cost.threads", "1,8").split(",");
		try (BenchmarkRedisServer server = BenchmarkRedisServer.start()) {
			List<LockArm> arms = List.of(new LettuceFloorArm("redis://127.0.0.1:" + server.port()),
					new DistlockProviderArm(server.port()), new DistlockProviderArm(server.port(), false),
					new DistlockRedisArm(server.port(), false), new DistlockRedisArm(server.port(), false, false),
					new DistlockRedisArm(server.port(), true));
			System.out.printf("%-55s %7s %5s %12s %12s %12s %12s %10s%n", "arm", "threads", "round", "caller B",
					"caller CPU ns", "JVM CPU ns", "JVM B", "cycles/s");
			for (String count : threadCounts) {
				int threads = Integer.parseInt(count.trim());
				for (int round = 1; round <= rounds; round++) {
					for (LockArm arm : arms) {
						CycleCost.Cost cost = CycleCost.measure(arm, threads, warmup, cycles, "cost" + round + ":" + threads,
								ClientCost::processBytes);
						System.out.printf(Locale.ROOT, "%-55s %7d %5d %12.0f %12.0f %12.0f %12.0f %10.0f%n",
								arm.name(), threads, round, cost.callerBytes(), cost.callerCpuNanos(),
								cost.processCpuNanos(), cost.probe(), cost.cyclesPerSecond());
					}
				}
			}
		}
	}

	/** Bytes the whole JVM allocated over the window, by the threads alive at both ends. */
	private static LongSupplier processBytes() {
		long[] ids = THREADS.getAllThreadIds();
		long[] before = THREADS.getThreadAllocatedBytes(ids);
		return () -> allocatedSince(ids, before);
	}

	/** Bytes allocated since by the threads alive at both points (a thread that ended meanwhile drops out). */
	private static long allocatedSince(long[] ids, long[] before) {
		long[] after = THREADS.getThreadAllocatedBytes(ids);
		long sum = 0;
		for (int i = 0; i < ids.length; i++) {
			if (before[i] >= 0 && after[i] >= 0) {
				sum += after[i] - before[i];
			}
		}
		return sum;
	}

}
