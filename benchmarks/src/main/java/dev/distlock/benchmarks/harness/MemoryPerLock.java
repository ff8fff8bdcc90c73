package dev.distlock.benchmarks.harness;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.function.LongSupplier;

/**
 * Bytes per held lock: the JVM heap live after a full GC, and the store's own count (Redis {@code used_memory}), both
 * as the difference between holding {@code count} locks and holding none, divided by {@code count}.
 */
public final class MemoryPerLock {

	private MemoryPerLock() {
	}

	/**
	 * The two figures, in bytes per held lock.
	 * @param heapBytes JVM heap per held lock, including the handle the caller keeps
	 * @param storeBytes store memory per held lock, or NaN when the store does not say
	 */
	public record Result(double heapBytes, double storeBytes) {
	}

	/**
	 * Holds {@code count} locks on distinct keys with one client, measures, and releases them.
	 */
	public static Result measure(LockClient client, String keyPrefix, int count, LongSupplier storeBytes) {
		Object[] held = new Object[count];
		// Warm the client's paths so lazily built state is in the baseline, not in the per-lock figure.
		Uncontended.cycles(client, keyPrefix + ":warm", 200);
		long heapBefore = liveHeap();
		long storeBefore = storeBytes.getAsLong();
		for (int i = 0; i < count; i++) {
			held[i] = client.lock(keyPrefix + ":m" + i);
		}
		long heapAfter = liveHeap();
		long storeAfter = storeBytes.getAsLong();
		for (Object lock : held) {
			client.unlock(lock);
		}
		double store = storeBefore < 0 ? Double.NaN : (storeAfter - storeBefore) / (double) count;
		return new Result((heapAfter - heapBefore) / (double) count, store);
	}

	/**
	 * The heap in use right after full collections: what is reachable, not what is garbage.
	 */
	static long liveHeap() {
		for (int i = 0; i < 3; i++) {
			System.gc();
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
		}
		long used = 0;
		for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
			MemoryUsage afterGc = pool.getCollectionUsage();
			if (pool.getType() == MemoryType.HEAP && afterGc != null) {
				used += afterGc.getUsed();
			}
		}
		return used;
	}

}
