package dev.distlock.benchmarks.harness;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * Cost of one uncontended lock+unlock cycle, exact rather than timed: {@code threads} threads share one client, each
 * on its own key, warm up, then run {@code cycles} cycles each while bytes allocated and CPU time on each calling
 * thread ({@code ThreadMXBean}), the whole JVM's CPU and one store-specific figure ({@link Probe}) are read around
 * the window. Load moves these figures far less than throughput. Used by the Redis and JDBC {@code ClientCost} tools.
 */
public final class CycleCost {

	/** The calling threads' and the JVM's counters. */
	public static final com.sun.management.ThreadMXBean THREADS = (com.sun.management.ThreadMXBean) ManagementFactory
		.getThreadMXBean();

	private static final com.sun.management.OperatingSystemMXBean OS = (com.sun.management.OperatingSystemMXBean) ManagementFactory
		.getOperatingSystemMXBean();

	private CycleCost() {
	}

	/** A figure read around the window: {@link #start()} when it opens, the returned reading when it closes. */
	public interface Probe {

		/** Starts reading; the result gives the amount since. */
		LongSupplier start();

	}

	/**
	 * Per cycle: caller bytes and CPU ns (mean over the threads), whole-JVM CPU ns, the probe's amount, and cycles per
	 * second.
	 */
	public record Cost(double callerBytes, double callerCpuNanos, double processCpuNanos, double probe,
			double cyclesPerSecond) {
	}

	public static Cost measure(LockArm arm, int threads, int warmup, int cycles, String keyPrefix, Probe probe)
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
			LongSupplier probed = probe.start();
			long start = System.nanoTime();
			done.await();
			long elapsed = System.nanoTime() - start;
			long processCpu = OS.getProcessCpuTime() - processCpuBefore;
			long probeAmount = probed.getAsLong();
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
			return new Cost(callerBytes / total, callerCpu / total, processCpu / total, probeAmount / total,
					total * 1e9 / elapsed);
		}
	}

}
