package dev.distlock.benchmarks.harness;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import com.zaxxer.hikari.metrics.IMetricsTracker;
import com.zaxxer.hikari.metrics.MetricsTrackerFactory;
import com.zaxxer.hikari.metrics.PoolStats;

/**
 * Counts the pooled connections one arm's clients have borrowed at once, exactly: every Hikari pool of the arm reports
 * each borrow and each return here (its metrics tracker), so the count is the arm's connections in use at any moment,
 * across all its clients. Also keeps the longest wait for a connection. {@link #mark()} starts a window: the maxima
 * start again from the connections in use at that moment (a connection a library keeps borrowed, such as a LISTEN
 * connection, stays counted).
 */
public final class ConnectionGauge implements MetricsTrackerFactory {

	private final AtomicInteger inUse = new AtomicInteger();

	private final AtomicInteger maxInUse = new AtomicInteger();

	private final AtomicLong maxWaitNanos = new AtomicLong();

	@Override
	public IMetricsTracker create(String poolName, PoolStats poolStats) {
		return new IMetricsTracker() {

			@Override
			public void recordConnectionAcquiredNanos(long elapsedAcquiredNanos) {
				int now = inUse.incrementAndGet();
				maxInUse.accumulateAndGet(now, Math::max);
				maxWaitNanos.accumulateAndGet(elapsedAcquiredNanos, Math::max);
			}

			@Override
			public void recordConnectionUsageMillis(long elapsedBorrowedMillis) {
				inUse.decrementAndGet();
			}

		};
	}

	/** Starts a window: the maxima start again. */
	public void mark() {
		maxInUse.set(inUse.get());
		maxWaitNanos.set(0);
	}

	/** The most connections in use at once since {@link #mark()}. */
	public int maxInUse() {
		return maxInUse.get();
	}

	/** The longest wait for a pooled connection since {@link #mark()}, in milliseconds. */
	public double maxWaitMillis() {
		return maxWaitNanos.get() / 1e6;
	}

}
