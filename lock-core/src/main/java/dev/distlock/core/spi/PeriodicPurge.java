package dev.distlock.core.spi;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * A provider's purge of expired locks, run with a fixed delay on a scheduler handed in (a Spring Boot application
 * hands in distlock's own) or on a daemon thread of its own: the scheduler is set before {@link #start()}, start
 * schedules once, {@link #close()} cancels the purges and stops the own thread, never a scheduler handed in. For
 * stores that keep expired locks until removed (JDBC, Mongo); Redis expires its keys itself.
 */
public final class PeriodicPurge {

	private final String threadName;

	private final @Nullable Duration interval;

	private final Runnable purge;

	/** The scheduler handed in, or null for a thread of the purge's own. */
	private @Nullable ScheduledExecutorService scheduler;

	/** The purge's own thread, when no scheduler was handed in. */
	private @Nullable ScheduledExecutorService ownThread;

	private @Nullable ScheduledFuture<?> purges;

	private boolean started;

	/**
	 * A purge run every {@code interval}, or never when it is null.
	 * @param threadName the name of the daemon thread used when no scheduler is handed in
	 * @param purge one purge, which logs its own failure: the next run tries again
	 */
	public PeriodicPurge(String threadName, @Nullable Duration interval, Runnable purge) {
		this.threadName = threadName;
		this.interval = interval;
		this.purge = purge;
	}

	/**
	 * Runs the purges on this scheduler instead of a thread of their own; its owner shuts it down.
	 * @throws IllegalStateException once started
	 */
	public synchronized void scheduler(ScheduledExecutorService scheduler) {
		if (started) {
			throw new IllegalStateException("The purge scheduler must be set before start()");
		}
		this.scheduler = scheduler;
	}

	/**
	 * Schedules the purges if there is an interval, the first one an interval from now.
	 * @return false if it was started before, and nothing is done
	 */
	public synchronized boolean start() {
		if (started) {
			return false;
		}
		started = true;
		if (interval != null) {
			ScheduledExecutorService on = scheduler;
			if (on == null) {
				on = Executors.newSingleThreadScheduledExecutor(runnable -> {
					Thread thread = new Thread(runnable, threadName);
					thread.setDaemon(true);
					return thread;
				});
				ownThread = on;
			}
			purges = on.scheduleWithFixedDelay(purge, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
		}
		return true;
	}

	/** Cancels the purges and stops the own thread; a scheduler handed in keeps running. */
	public synchronized void close() {
		if (purges != null) {
			purges.cancel(false);
			purges = null;
		}
		if (ownThread != null) {
			ownThread.shutdownNow();
			ownThread = null;
		}
	}

}
