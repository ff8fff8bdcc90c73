package dev.distlock.core.internal;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * Renews auto-renew leases every third of the lease, and checks locks without expiry at a set interval (they have no
 * lease to renew, and no other way to learn that they were taken away). One shared scheduler thread ticks for all locks; the renewals
 * run on a small pool of their own (one thread while the store answers), so a renewal stuck in the store delays no
 * other lock's renewal, and a lock's next tick is skipped while its own renewal is still running. Both can be handed
 * in (a Spring Boot application passes threads built with Boot's builders); what is handed in is not shut down here,
 * but once closed the watchdog makes no more renewals, and each tick still scheduled cancels itself when it fires.
 */
public final class Watchdog implements AutoCloseable {

	private final @Nullable ScheduledExecutorService supplied;

	private volatile @Nullable ScheduledExecutorService owned;

	/** Runs the renewals themselves, so one store call that hangs delays no other lock's renewal. */
	private final Executor renewals;

	/** The renewal pool this watchdog made, which it shuts down at close; null when one was handed in. */
	private final @Nullable ExecutorService ownedRenewals;

	private volatile boolean closed;

	/**
	 * A watchdog on the given scheduler, or on its own daemon thread (started on first use) when null, renewing on its
	 * own pool of daemon threads.
	 */
	public Watchdog(@Nullable ScheduledExecutorService scheduler) {
		this(scheduler, null);
	}

	/**
	 * A watchdog ticking on the given scheduler and renewing on the given executor; either, when null, is the
	 * watchdog's own. The executor must run tasks concurrently (a renewal stuck in the store must not hold up
	 * others) and must not run them on the calling thread, which is the ticking one.
	 */
	public Watchdog(@Nullable ScheduledExecutorService scheduler, @Nullable Executor renewals) {
		this.supplied = scheduler;
		if (renewals != null) {
			this.renewals = renewals;
			this.ownedRenewals = null;
		}
		else {
			ExecutorService pool = Executors.newCachedThreadPool(runnable -> {
				Thread thread = new Thread(runnable, "distlock-renewal");
				thread.setDaemon(true);
				return thread;
			});
			this.renewals = pool;
			this.ownedRenewals = pool;
		}
	}

	/**
	 * Starts renewing the handle until it is released or lost.
	 */
	public void watch(LeaseHandle handle) {
		Duration interval = renewInterval(handle.timeout());
		long nanos = interval.toNanos();
		handle.attachRenewal(scheduler().scheduleWithFixedDelay(() -> renewLater(handle, interval),
				nanos, nanos, TimeUnit.NANOSECONDS));
	}

	/**
	 * Starts checking, every {@code interval}, that the store still holds the handle's lock without expiry, until it
	 * is released or found lost.
	 */
	public void check(LeaseHandle handle, Duration interval) {
		long nanos = interval.toNanos();
		handle.attachRenewal(scheduler().scheduleWithFixedDelay(() -> checkLater(handle), nanos, nanos,
				TimeUnit.NANOSECONDS));
	}

	private void checkLater(LeaseHandle handle) {
		if (closed) {
			handle.cancelRenewal();
			return;
		}
		try {
			renewals.execute(() -> {
				if (!closed) {
					handle.checkHolder();
				}
			});
		}
		catch (RejectedExecutionException ex) {
			// closed, or the executor's owner shut it down: the template is shutting down and releases its locks itself
		}
	}

	private void renewLater(LeaseHandle handle, Duration interval) {
		if (closed) {
			handle.cancelRenewal();
			return;
		}
		try {
			renewals.execute(() -> {
				if (!closed) {
					handle.renewOnce(interval);
				}
			});
		}
		catch (RejectedExecutionException ex) {
			// closed, or the executor's owner shut it down: the template is shutting down and releases its locks itself
		}
	}

	/**
	 * A third of the lease, so two renewals can fail before the lease runs out.
	 */
	static Duration renewInterval(Duration lease) {
		return lease.dividedBy(3);
	}

	private ScheduledExecutorService scheduler() {
		if (supplied != null) {
			return supplied;
		}
		ScheduledExecutorService current = owned;
		if (current == null) {
			synchronized (this) {
				current = owned;
				if (current == null) {
					ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
						Thread thread = new Thread(runnable, "distlock-watchdog");
						thread.setDaemon(true);
						return thread;
					});
					executor.setRemoveOnCancelPolicy(true);
					current = Executors.unconfigurableScheduledExecutorService(executor);
					owned = current;
				}
			}
		}
		return current;
	}

	/**
	 * Stops renewing: no renewal starts after this, ticks on a scheduler handed in cancel themselves when they next
	 * fire, and the threads the watchdog made itself are stopped. Executors handed in are left to their owner.
	 */
	@Override
	public void close() {
		closed = true;
		if (ownedRenewals != null) {
			ownedRenewals.shutdownNow();
		}
		ScheduledExecutorService current = owned;
		if (current != null) {
			current.shutdownNow();
		}
	}

}
