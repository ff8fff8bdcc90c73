package dev.distlock.benchmarks.harness;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Acquire+release cycles per second on distinct keys: one client shared by {@code threads} threads, each on its own
 * key, so nobody ever waits for a holder.
 */
public final class Uncontended {

	private Uncontended() {
	}

	/**
	 * Runs for the window and returns the cycles per second.
	 */
	public static double cyclesPerSecond(LockClient client, String keyPrefix, int threads, Duration window) {
		LongAdder cycles = new LongAdder();
		AtomicReference<Throwable> failure = new AtomicReference<>();
		CountDownLatch start = new CountDownLatch(1);
		long[] deadline = new long[1];
		List<Thread> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			String key = keyPrefix + ":u" + t;
			Thread worker = new Thread(() -> {
				try {
					start.await();
					long end = deadline[0];
					long done = 0;
					while (System.nanoTime() < end) {
						client.unlock(client.lock(key));
						done++;
					}
					cycles.add(done);
				}
				catch (Throwable ex) {
					failure.compareAndSet(null, ex);
				}
			}, "uncontended-" + t);
			workers.add(worker);
			worker.start();
		}
		long begin = System.nanoTime();
		deadline[0] = begin + window.toNanos();
		start.countDown();
		Threads.joinAll(workers, window.plusSeconds(30));
		long elapsed = System.nanoTime() - begin;
		Threads.rethrow(failure.get());
		return cycles.sum() * 1e9 / elapsed;
	}

	/**
	 * Runs a fixed number of cycles on one thread and key: for command counting.
	 */
	public static void cycles(LockClient client, String key, int count) {
		for (int i = 0; i < count; i++) {
			client.unlock(client.lock(key));
		}
	}

}
