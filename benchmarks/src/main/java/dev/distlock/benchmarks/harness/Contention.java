package dev.distlock.benchmarks.harness;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

/**
 * K independent clients loop lock-unlock on one key. Records throughput, the hand-off latency (from the holder starting
 * its unlock to a different client's lock call returning) and the wait (from lock requested to lock returned), and
 * counts overlapping holders, which must stay zero. The same clients first run the same loop for a warm-up whose
 * figures are dropped, so connections, subscriptions, script caches and JIT-compiled contended paths are in place
 * before the window, for every arm alike.
 */
public final class Contention {

	private static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(300);

	private final AtomicInteger holder = new AtomicInteger(-1);

	private final LongAdder violations = new LongAdder();

	private volatile @Nullable Release lastRelease;

	private Contention() {
	}

	/**
	 * Creates the clients, runs them for the warm-up (figures dropped), then runs {@code beforeWindow} and the measured
	 * window, and closes them.
	 */
	public static ContentionResult run(Supplier<LockClient> clients, int count, String key, Duration warmup,
			Duration window, Runnable beforeWindow) {
		return run(clients, count, key, warmup, window, beforeWindow, () -> {
		});
	}

	/**
	 * As {@link #run(Supplier, int, String, Duration, Duration, Runnable)}, running {@code afterWindow} once every
	 * client has stopped, before they are closed.
	 */
	public static ContentionResult run(Supplier<LockClient> clients, int count, String key, Duration warmup,
			Duration window, Runnable beforeWindow, Runnable afterWindow) {
		List<LockClient> created = new ArrayList<>();
		try {
			for (int i = 0; i < count; i++) {
				created.add(clients.get());
			}
			if (!warmup.isZero()) {
				new Contention().measure(created, key, warmup);
			}
			beforeWindow.run();
			ContentionResult result = new Contention().measure(created, key, window);
			afterWindow.run();
			return result;
		}
		finally {
			created.forEach(LockClient::close);
		}
	}

	private ContentionResult measure(List<LockClient> clients, String key, Duration window) {
		int count = clients.size();
		Histogram[] handOffs = new Histogram[count];
		Histogram[] waits = new Histogram[count];
		long[] cycles = new long[count];
		AtomicReference<Throwable> failure = new AtomicReference<>();
		CountDownLatch start = new CountDownLatch(1);
		long[] deadline = new long[1];
		List<Thread> workers = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			int id = i;
			handOffs[id] = new Histogram(HIGHEST_NANOS, 3);
			waits[id] = new Histogram(HIGHEST_NANOS, 3);
			Thread worker = new Thread(() -> {
				try {
					start.await();
					cycles[id] = loop(clients.get(id), id, key, deadline[0], handOffs[id], waits[id]);
				}
				catch (Throwable ex) {
					failure.compareAndSet(null, ex);
				}
			}, "contender-" + i);
			workers.add(worker);
			worker.start();
		}
		long begin = System.nanoTime();
		deadline[0] = begin + window.toNanos();
		start.countDown();
		Threads.joinAll(workers, window.plusSeconds(60));
		Threads.rethrow(failure.get());
		Histogram handOff = new Histogram(HIGHEST_NANOS, 3);
		Histogram wait = new Histogram(HIGHEST_NANOS, 3);
		long total = 0;
		int starved = 0;
		for (int i = 0; i < count; i++) {
			handOff.add(handOffs[i]);
			wait.add(waits[i]);
			total += cycles[i];
			starved += cycles[i] == 0 ? 1 : 0;
		}
		return new ContentionResult(count, total / (window.toNanos() / 1e9), total, handOff, wait, starved,
				violations.sum());
	}

	private long loop(LockClient client, int id, String key, long end, Histogram handOff, Histogram wait) {
		long done = 0;
		while (System.nanoTime() < end) {
			long requested = System.nanoTime();
			Object held = client.lock(key);
			long acquired = System.nanoTime();
			if (holder.getAndSet(id) != -1) {
				violations.increment();
			}
			Release previous = lastRelease;
			if (acquired <= end) {
				done++;
				wait.recordValue(Math.min(acquired - requested, HIGHEST_NANOS));
				if (previous != null && previous.client != id) {
					handOff.recordValue(Math.min(Math.max(0, acquired - previous.nanos), HIGHEST_NANOS));
				}
			}
			// Stamp before the unlock call starts: a waiter can win the moment the release reaches the store.
			lastRelease = new Release(id, System.nanoTime());
			holder.set(-1);
			client.unlock(held);
		}
		return done;
	}

	private record Release(int client, long nanos) {
	}

}
