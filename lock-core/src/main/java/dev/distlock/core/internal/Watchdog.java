package dev.distlock.core.internal;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Renews auto-renew leases every third of the lease, and checks locks without expiry at a set interval (they have no
 * lease to renew, and no other way to learn that they were taken away), by sweeping the held handles: one sweep looks
 * at every held handle the watchdog ticks for, hands each one that is due to the renewal pool, and schedules the next
 * sweep for the earliest handle due next. A handle is due up to a quarter of its interval early, so handles due close
 * together share a sweep; a short lease is due soon and brings the next sweep forward, so every lease is renewed
 * within its interval whatever the others' lengths. Taking and releasing a lock only writes the handle's own fields
 * (the registry's held set is what the sweep reads); the scheduler is touched only when no sweep is due early enough,
 * at most once per sweep in a steady stream of locks, not once per lock.
 * <p>One shared scheduler thread sweeps for all locks; the renewals run on a small pool of their own (one thread while
 * the store answers), so a renewal stuck in the store delays no other lock's renewal, and a handle whose own renewal
 * is still running is skipped (one renewal in flight per handle). Both can be handed in (a Spring Boot application
 * passes threads built with Boot's builders); what is handed in is not shut down here, but once closed the watchdog
 * makes no more renewals, and its pending sweep is cancelled (one already started schedules no other).
 */
public final class Watchdog implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(Watchdog.class);

	/** The handles to sweep: the registry's held set; released and lost handles leave it. */
	private final Iterable<LeaseHandle> handles;

	private final @Nullable ScheduledExecutorService supplied;

	private volatile @Nullable ScheduledExecutorService owned;

	/** Runs the renewals themselves, so one store call that hangs delays no other lock's renewal. */
	private final Executor renewals;

	/** The renewal pool this watchdog made, which it shuts down at close; null when one was handed in. */
	private final @Nullable ExecutorService ownedRenewals;

	private final Runnable sweepTask = this::sweep;

	/** Held by a sweep, so two sweeps (on a scheduler with several threads) never run at once. */
	private final Object sweepLock = new Object();

	/** Whether a sweep is scheduled and has not started yet; written under this object's monitor. */
	private volatile boolean pending;

	/** When the pending sweep runs, by {@link System#nanoTime()}; written before {@link #pending}. */
	private volatile long pendingAtNanos;

	/** The pending sweep, cancelled when an earlier one replaces it or at close. */
	private @Nullable ScheduledFuture<?> pendingSweep;

	private volatile boolean closed;

	/**
	 * A watchdog sweeping {@code handles}, ticking on the given scheduler and renewing on the given executor; either,
	 * when null, is the watchdog's own (a daemon thread started on first use, a pool of daemon threads). The executor
	 * must run tasks concurrently (a renewal stuck in the store must not hold up others) and must not run them on the
	 * calling thread, which is the sweeping one.
	 */
	public Watchdog(Iterable<LeaseHandle> handles, @Nullable ScheduledExecutorService scheduler,
			@Nullable Executor renewals) {
		this.handles = handles;
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
	 * Starts renewing the handle, every third of its lease, until it is released or lost. Call it once the handle is
	 * in the swept set.
	 */
	public void watch(LeaseHandle handle) {
		tick(handle, renewIntervalNanos(handle.timeout()), true);
	}

	/**
	 * Starts checking, every {@code interval}, that the store still holds the handle's lock without expiry, until it
	 * is released or found lost. Call it once the handle is in the swept set.
	 */
	public void check(LeaseHandle handle, Duration interval) {
		tick(handle, interval.toNanos(), false);
	}

	/**
	 * Runs the handle's release again every {@code everyNanos}, after a release the store could not take, until it
	 * lands or the handle is no longer held.
	 */
	public void retryRelease(LeaseHandle handle, long everyNanos) {
		schedule(handle.releaseEvery(everyNanos), everyNanos);
	}

	private void tick(LeaseHandle handle, long everyNanos, boolean renews) {
		schedule(handle.tickEvery(everyNanos, renews), everyNanos);
	}

	private void schedule(long dueNanos, long everyNanos) {
		long sweepAt = dueNanos - early(everyNanos);
		// The usual case: a sweep is due no later than this handle; it will see the handle, which is in the set
		// already (a sweep clears `pending` before it reads the set).
		if (pending && sweepAt - pendingAtNanos >= 0) {
			return;
		}
		sweepBy(sweepAt);
	}

	/**
	 * One sweep: hands every handle that is due to the renewal pool (unless its last renewal still runs), moves its
	 * due time an interval on, and schedules the next sweep for the earliest handle due next, if any.
	 */
	private void sweep() {
		synchronized (sweepLock) {
			synchronized (this) {
				pending = false;
				pendingSweep = null;
			}
			if (closed) {
				return;
			}
			long now = System.nanoTime();
			boolean any = false;
			long next = 0;
			for (LeaseHandle handle : handles) {
				long every = handle.tickNanos();
				if (every == 0) {
					continue;
				}
				long due = handle.dueNanos();
				if (now - (due - early(every)) >= 0) {
					// due, or a renewal still running: its tick is skipped, the next comes an interval on
					due = now + every;
					handle.dueNanos(due);
					if (handle.startTick()) {
						renew(handle, every);
					}
				}
				long at = due - early(every);
				if (!any || at - next < 0) {
					next = at;
					any = true;
				}
			}
			if (any) {
				sweepBy(next);
			}
		}
	}

	private void renew(LeaseHandle handle, long everyNanos) {
		try {
			renewals.execute(() -> {
				if (closed) {
					handle.endTick();
				}
				else {
					handle.runTick(everyNanos);
				}
			});
		}
		catch (RejectedExecutionException ex) {
			// closed, or the executor's owner shut it down: the template is shutting down and releases its locks itself
			handle.endTick();
		}
	}

	/**
	 * Makes sure a sweep runs no later than {@code atNanos}: schedules one unless one is pending by then; an earlier
	 * one replaces a later one.
	 */
	private synchronized void sweepBy(long atNanos) {
		if (closed || (pending && atNanos - pendingAtNanos >= 0)) {
			return;
		}
		ScheduledFuture<?> later = pendingSweep;
		pendingAtNanos = atNanos;
		pending = true;
		try {
			pendingSweep = scheduler().schedule(sweepTask, Math.max(0, atNanos - System.nanoTime()),
					TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			pending = false;
			pendingSweep = later;
			logger.warn("The lock watchdog's scheduler refused a sweep (shut down by its owner?); held locks are not "
					+ "renewed or checked until a later lock schedules one", ex);
			return;
		}
		if (later != null) {
			later.cancel(false);
		}
	}

	/**
	 * A third of the lease, so two renewals can fail before the lease runs out; in nanoseconds, as
	 * {@link Duration#dividedBy(long)} divides in {@link java.math.BigDecimal}, on every auto-renew acquire.
	 */
	static long renewIntervalNanos(Duration lease) {
		return lease.toNanos() / 3;
	}

	/** How early a handle may be renewed or checked: a quarter of its interval, so that sweeps are shared. */
	private static long early(long everyNanos) {
		return everyNanos / 4;
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
	 * Stops renewing: no renewal starts after this, the pending sweep is cancelled (on a scheduler handed in it
	 * leaves the queue when that scheduler removes cancelled tasks, else it does nothing when it fires), and the
	 * threads the watchdog made itself are stopped. Executors handed in are left to their owner.
	 */
	@Override
	public void close() {
		ScheduledFuture<?> sweep;
		synchronized (this) {
			closed = true;
			sweep = pendingSweep;
			pendingSweep = null;
			pending = false;
		}
		if (sweep != null) {
			sweep.cancel(false);
		}
		if (ownedRenewals != null) {
			ownedRenewals.shutdownNow();
		}
		ScheduledExecutorService current = owned;
		if (current != null) {
			current.shutdownNow();
		}
	}

}
