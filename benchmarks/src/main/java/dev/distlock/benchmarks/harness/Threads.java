package dev.distlock.benchmarks.harness;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Small helpers for the worker threads of a workload.
 */
final class Threads {

	private Threads() {
	}

	/**
	 * Joins every thread, giving up (and saying so) after the limit: a library that never wakes a waiter must not hang
	 * the whole run.
	 */
	static void joinAll(List<Thread> threads, Duration limit) {
		long end = System.nanoTime() + limit.toNanos();
		for (Thread thread : threads) {
			try {
				thread.join(Math.max(1, (end - System.nanoTime()) / 1_000_000));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while joining " + thread.getName(), ex);
			}
			if (thread.isAlive()) {
				thread.interrupt();
				throw new IllegalStateException(thread.getName() + " did not finish within " + limit);
			}
		}
	}

	/**
	 * Rethrows a worker's failure in the calling thread.
	 */
	static void rethrow(@Nullable Throwable failure) {
		if (failure instanceof RuntimeException ex) {
			throw ex;
		}
		if (failure instanceof Error error) {
			throw error;
		}
		if (failure != null) {
			throw new IllegalStateException(failure);
		}
	}

}
