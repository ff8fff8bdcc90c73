package dev.distlock.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

import dev.distlock.core.DistributedLockException;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.LockTemplate;

/**
 * Clients locking and releasing in a loop while a store fault happens: every call is timed (the longest one is the
 * "no hang" figure), every error is sorted into typed (the {@link DistributedLockException} hierarchy: expected are
 * {@link LockStoreException} and {@link LockAcquisitionException}) and untyped, and the first success after a mark
 * in time is the recovery figure.
 */
final class FailoverLoad implements AutoCloseable {

	private static final LockOptions ONE_ATTEMPT = LockOptions.builder().timeout(Duration.ofSeconds(10)).build();

	private final LockTemplate template;

	private final ExecutorService threads;

	private final List<Future<?>> loops = new ArrayList<>();

	private volatile boolean running = true;

	private final LongAdder successes = new LongAdder();

	private final LongAdder typedErrors = new LongAdder();

	private final Map<String, Integer> untypedErrors = new ConcurrentHashMap<>();

	private final Map<String, Integer> typedErrorKinds = new ConcurrentHashMap<>();

	private final AtomicLong longestCallNanos = new AtomicLong();

	private volatile long markNanos;

	private final AtomicLong firstSuccessAfterMark = new AtomicLong();

	private final AtomicLong lastErrorAfterMark = new AtomicLong();

	/**
	 * Starts {@code clients} threads, each taking and releasing keys {@code key-0..key-(keys-1)} without waiting.
	 */
	FailoverLoad(LockTemplate template, int clients, int keys) {
		this.template = template;
		this.threads = Executors.newFixedThreadPool(clients);
		AtomicInteger next = new AtomicInteger();
		for (int i = 0; i < clients; i++) {
			loops.add(threads.submit(() -> {
				while (running) {
					cycle("key-" + Math.floorMod(next.getAndIncrement(), keys));
				}
			}));
		}
	}

	/**
	 * Marks now as the fault; {@link #recovery()} counts from here.
	 */
	void markFault() {
		firstSuccessAfterMark.set(0);
		lastErrorAfterMark.set(0);
		markNanos = System.nanoTime();
	}

	/**
	 * Waits until a cycle succeeded after the mark and no error came for {@code quiet}; returns the time from the
	 * mark to the first success after the last error, or empty when that does not happen within the bound.
	 */
	Optional<Duration> awaitRecovery(Duration bound, Duration quiet) throws InterruptedException {
		long deadline = markNanos + bound.toNanos();
		while (System.nanoTime() < deadline) {
			long success = firstSuccessAfterMark.get();
			long lastError = lastErrorAfterMark.get();
			if (success != 0 && System.nanoTime() - Math.max(success, lastError) > quiet.toNanos()) {
				return Optional.of(Duration.ofNanos(success - markNanos));
			}
			Thread.sleep(20);
		}
		return Optional.empty();
	}

	/** Cycles that locked and released. */
	long successes() {
		return successes.sum();
	}

	/** Calls that failed with a typed lock error. */
	long typedErrors() {
		return typedErrors.sum();
	}

	/** Typed errors by class, for the report. */
	Map<String, Integer> typedErrorKinds() {
		return Map.copyOf(typedErrorKinds);
	}

	/** Calls that failed with anything else, by class and message. */
	Map<String, Integer> untypedErrors() {
		return Map.copyOf(untypedErrors);
	}

	/** The longest single lock or release call. */
	Duration longestCall() {
		return Duration.ofNanos(longestCallNanos.get());
	}

	@Override
	public void close() throws Exception {
		running = false;
		for (Future<?> loop : loops) {
			loop.get(30, TimeUnit.SECONDS);
		}
		threads.shutdownNow();
	}

	private void cycle(String key) {
		LockHandle handle = timed(() -> template.tryAcquire(key, ONE_ATTEMPT).orElse(null));
		if (handle != null && timed(() -> {
			handle.release();
			return Boolean.TRUE;
		}) != null) {
			successes.increment();
			if (markNanos != 0) {
				firstSuccessAfterMark.compareAndSet(0, System.nanoTime());
			}
		}
	}

	private <T> T timed(java.util.function.Supplier<T> call) {
		long start = System.nanoTime();
		try {
			return call.get();
		}
		catch (DistributedLockException ex) {
			typedErrors.increment();
			typedErrorKinds.merge(ex.getClass().getSimpleName(), 1, Integer::sum);
			afterError();
			return null;
		}
		catch (RuntimeException ex) {
			untypedErrors.merge(ex.getClass().getName() + ": " + ex.getMessage(), 1, Integer::sum);
			afterError();
			return null;
		}
		finally {
			longestCallNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
		}
	}

	private void afterError() {
		if (markNanos != 0) {
			lastErrorAfterMark.set(System.nanoTime());
			// A success before this error was not the recovery yet.
			firstSuccessAfterMark.set(0);
		}
	}

	/**
	 * What an exclusion run saw.
	 * @param sections critical sections run
	 * @param counterTotal the sum of the unguarded per-key counters (equals sections when nothing overlapped)
	 * @param overlaps sections that found another one inside
	 * @param tokenInversions grants whose fencing token was not above the key's previous one
	 */
	record Exclusion(int sections, long counterTotal, int overlaps, int tokenInversions) {
	}

	/**
	 * {@code threads} threads, each taking one of {@code keys} keys {@code iterations} times (waiting for it), with an
	 * unguarded read-modify-write inside: exact counters prove mutual exclusion.
	 */
	/**
	 * Acquires, trying again after a typed store error: the tests' 1 s command timeout can run out on a loaded machine
	 * or at the tail of a failover, which is not what the exclusion check is about (a section is counted only once
	 * entered, so the counters stay exact).
	 */
	private static LockHandle acquireThroughStoreTimeouts(LockTemplate template, String key, LockOptions options) {
		for (int attempt = 1;; attempt++) {
			try {
				return template.acquire(key, options);
			}
			catch (LockStoreException ex) {
				if (attempt == 20) {
					throw ex;
				}
			}
		}
	}

	static Exclusion mutualExclusion(LockTemplate template, int threads, int iterations, int keys) throws Exception {
		// Atomic arrays for visibility only: get then set is still an unguarded read-modify-write.
		AtomicLongArray counters = new AtomicLongArray(keys);
		AtomicLongArray lastTokens = new AtomicLongArray(keys);
		AtomicInteger[] inside = new AtomicInteger[keys];
		for (int k = 0; k < keys; k++) {
			inside[k] = new AtomicInteger();
		}
		AtomicInteger overlaps = new AtomicInteger();
		AtomicInteger inversions = new AtomicInteger();
		LockOptions waiting = LockOptions.builder()
			.timeout(Duration.ofSeconds(10))
			.waitUpTo(Duration.ofSeconds(30))
			.build();
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> runs = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int thread = t;
				runs.add(pool.submit(() -> {
					for (int i = 0; i < iterations; i++) {
						int k = (thread + i) % keys;
						LockHandle handle = acquireThroughStoreTimeouts(template, "exclusion-" + k, waiting);
						try {
							if (inside[k].incrementAndGet() > 1) {
								overlaps.incrementAndGet();
							}
							if (handle.fencingToken() <= lastTokens.get(k)) {
								inversions.incrementAndGet();
							}
							lastTokens.set(k, handle.fencingToken());
							long read = counters.get(k);
							Thread.yield();
							counters.set(k, read + 1);
							inside[k].decrementAndGet();
						}
						finally {
							handle.release();
						}
					}
					return null;
				}));
			}
			for (Future<?> run : runs) {
				run.get(120, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		long total = 0;
		for (int k = 0; k < keys; k++) {
			total += counters.get(k);
		}
		return new Exclusion(threads * iterations, total, overlaps.get(), inversions.get());
	}

}
