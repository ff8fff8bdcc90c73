package dev.distlock.benchmarks.redis;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;

import dev.distlock.benchmarks.harness.LockArm;
import dev.distlock.benchmarks.harness.LockClient;

/**
 * Client cost of one uncontended cycle, exact rather than timed: bytes allocated and CPU time per cycle on the calling
 * threads ({@code ThreadMXBean}), and CPU and allocation of the whole JVM over the same cycles (Lettuce's event loop and
 * timer threads included), for the floor, the provider alone and the template arms, each with one client shared by
 * the threads, each thread on its own key. Load moves these figures far less than throughput. Run with
 * {@code java -cp benchmarks.jar dev.distlock.benchmarks.redis.ClientCost}; {@code -Dcost.threads=1,8},
 * {@code -Dcost.warmup=10000} and {@code -Dcost.cycles=20000} (per thread), {@code -Dcost.rounds=2}.
 */
public final class ClientCost {

	private static final com.sun.management.ThreadMXBean THREADS = (com.sun.management.ThreadMXBean) ManagementFactory
		.getThreadMXBean();

	private static final com.sun.management.OperatingSystemMXBean OS = (com.sun.management.OperatingSystemMXBean) ManagementFactory
		.getOperatingSystemMXBean();

	private ClientCost() {
	}

	/**
	 * Per cycle: caller bytes and CPU ns (mean over the threads), whole-JVM CPU ns and bytes, and cycles per second.
	 */
	record Cost(double callerBytes, double callerCpuNanos, double processCpuNanos, double processBytes,
			double cyclesPerSecond) {
	}

	public static void main(String[] args) throws Exception {
		int warmup = Integer.getInteger("cost.warmup", 10_000);
		int cycles = Integer.getInteger("cost.cycles", 20_000);
		int rounds = Integer.getInteger("cost.rounds", 2);
		String[] threadCounts = System.getProperty("cost.threads", "1,8").split(",");
		try (BenchmarkRedisServer server = BenchmarkRedisServer.start()) {
			List<LockArm> arms = List.of(new LettuceFloorArm("redis://127.0.0.1:" + server.port()),
					new DistlockProviderArm(server.port()), new DistlockRedisArm(server.port(), false),
					new DistlockRedisArm(server.port(), true));
			System.out.printf("%-55s %7s %5s %12s %12s %12s %12s %10s%n", "arm", "threads", "round", "caller B",
					"caller CPU ns", "JVM CPU ns", "JVM B", "cycles/s");
			for (String count : threadCounts) {
				int threads = Integer.parseInt(count.trim());
				for (int round = 1; round <= rounds; round++) {
					for (LockArm arm : arms) {
						Cost cost = measure(arm, threads, warmup, cycles, "cost" + round + ":" + threads);
						System.out.printf(Locale.ROOT, "%-55s %7d %5d %12.0f %12.0f %12.0f %12.0f %10.0f%n",
								arm.name(), threads, round, cost.callerBytes(), cost.callerCpuNanos(),
								cost.processCpuNanos(), cost.processBytes(), cost.cyclesPerSecond());
					}
				}
			}
		}
	}

	static Cost measure(LockArm arm, int threads, int warmup, int cycles, String keyPrefix) throws Exception {
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
			long[] ids = THREADS.getAllThreadIds();
			long[] bytesBefore = THREADS.getThreadAllocatedBytes(ids);
			long start = System.nanoTime();
			done.await();
			long elapsed = System.nanoTime() - start;
			long processCpu = OS.getProcessCpuTime() - processCpuBefore;
			long processBytes = allocatedSince(ids, bytesBefore);
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
			return new Cost(callerBytes / total, callerCpu / total, processCpu / total, processBytes / total,
					total * 1e9 / elapsed);
		}
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
