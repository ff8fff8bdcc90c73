package dev.distlock.jdbc;

import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Cancels statements that outlive their bound, as pgjdbc's query timeout does, without its cost per statement: pgjdbc
 * schedules a task per statement on the JVM-wide {@code PostgreSQL-JDBC-SharedTimer}, then cancels and purges it,
 * which wakes the timer thread and takes its lock on every statement. Here a statement in flight takes one slot of a
 * fixed array (its deadline, then the statement; no allocation and no lock), and one daemon thread scans the slots
 * every {@link #TICK_NANOS} while any is taken and calls {@link Statement#cancel()} on each overdue statement, which
 * is what pgjdbc's timer calls: the server cancels it and the caller gets the driver's error. The thread parks when no
 * slot is taken (a caller that finds it parked wakes it) and ends after a minute without work. A caller that finds no
 * free slot gets {@code -1} and uses the driver's query timeout instead.
 */
final class StatementWatchdog {

	private static final Log logger = LogFactory.getLog(StatementWatchdog.class);

	/** The JVM's watchdog. */
	static final StatementWatchdog SHARED = new StatementWatchdog(256);

	/** How often taken slots are scanned: the most a cancel comes after its deadline, beside the scheduling delay. */
	static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

	private static final long IDLE_EXIT_NANOS = TimeUnit.MINUTES.toNanos(1);

	/** A free slot's deadline. */
	private static final long FREE = 0;

	/** The deadline of a slot whose statement is being cancelled. */
	private static final long CANCELLING = Long.MIN_VALUE;

	/**
	 * Each slot's deadline ({@link System#nanoTime()}), {@link #FREE} or {@link #CANCELLING}. A slot is taken by a
	 * compare-and-set from {@code FREE} and given back by its owner only, statement first, so the watchdog that moved
	 * a deadline to {@code CANCELLING} reads that owner's statement or none.
	 */
	private final AtomicLongArray deadlines;

	private final AtomicReferenceArray<@Nullable Statement> statements;

	private final int mask;

	private final Object lifecycle = new Object();

	/** Whether the thread is parked with no slot taken, or gone: a caller that takes a slot then wakes or starts it. */
	private volatile boolean sleeping = true;

	/** Guarded by {@link #lifecycle}. */
	private @Nullable Thread thread;

	/** @param slots a power of two: the statements watched at once, beyond which the driver's timeout is used */
	StatementWatchdog(int slots) {
		if (Integer.bitCount(slots) != 1) {
			throw new IllegalArgumentException("slots must be a power of two, was " + slots);
		}
		this.deadlines = new AtomicLongArray(slots);
		this.statements = new AtomicReferenceArray<>(slots);
		this.mask = slots - 1;
	}

	/**
	 * Watches a statement about to be executed, until {@link #release}.
	 * @return the slot to release, or {@code -1} when every slot is taken (nothing is watched then)
	 */
	int watch(Statement statement, long boundMillis) {
		long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(boundMillis);
		if (deadline == FREE || deadline == CANCELLING) {
			deadline++;
		}
		int start = (int) Thread.currentThread().getId();
		for (int i = 0; i <= mask; i++) {
			int slot = (start + i) & mask;
			if (deadlines.get(slot) == FREE && deadlines.compareAndSet(slot, FREE, deadline)) {
				statements.set(slot, statement);
				if (sleeping) {
					wake();
				}
				return slot;
			}
		}
		return -1;
	}

	/** Gives back a slot {@link #watch} returned; does nothing for {@code -1}. */
	void release(int slot) {
		if (slot >= 0) {
			statements.set(slot, null);
			deadlines.set(slot, FREE);
		}
	}

	private void wake() {
		synchronized (lifecycle) {
			sleeping = false;
			Thread current = thread;
			if (current != null) {
				LockSupport.unpark(current);
				return;
			}
			Thread started = new Thread(this::run, "distlock-jdbc-statement-watchdog");
			started.setDaemon(true);
			thread = started;
			started.start();
		}
	}

	private void run() {
		long idleSince = System.nanoTime();
		while (true) {
			if (scan()) {
				idleSince = System.nanoTime();
				LockSupport.parkNanos(this, TICK_NANOS);
				continue;
			}
			// No slot taken: say so before looking again, so a caller that takes one now either sees it and wakes
			// this thread or is seen by the second scan (both sides write, then read, volatile fields).
			sleeping = true;
			if (scan()) {
				sleeping = false;
				continue;
			}
			if (System.nanoTime() - idleSince >= IDLE_EXIT_NANOS) {
				synchronized (lifecycle) {
					if (sleeping && !scan()) {
						thread = null;
						return;
					}
				}
				continue;
			}
			LockSupport.parkNanos(this, IDLE_EXIT_NANOS);
		}
	}

	/** Cancels the overdue statements; returns whether any slot is taken. */
	private boolean scan() {
		boolean taken = false;
		long now = System.nanoTime();
		for (int slot = 0; slot <= mask; slot++) {
			long deadline = deadlines.get(slot);
			if (deadline == FREE) {
				continue;
			}
			taken = true;
			// A slot whose statement is not set yet (its owner between taking it and setting it) waits for the next
			// scan, so a deadline is never moved to CANCELLING with nothing to cancel. The statement is read before
			// the compare-and-set: once the deadline is still this one, it is this owner's statement, never that of
			// a later owner who took the slot after this one gave it back.
			if (deadline != CANCELLING && now - deadline >= 0) {
				Statement statement = statements.get(slot);
				if (statement != null && deadlines.compareAndSet(slot, deadline, CANCELLING)) {
					cancelAside(statement);
				}
			}
		}
		return taken;
	}

	/**
	 * Cancels on a thread of its own: pgjdbc sends the cancel request on a new connection, which a stalled network
	 * could hold up to its {@code cancelSignalTimeout}, and the other statements' deadlines must not wait for it.
	 */
	private static void cancelAside(Statement statement) {
		Thread canceller = new Thread(() -> cancel(statement), "distlock-jdbc-statement-cancel");
		canceller.setDaemon(true);
		canceller.start();
	}

	private static void cancel(Statement statement) {
		try {
			statement.cancel();
		}
		catch (SQLException | RuntimeException ex) {
			logger.debug("Could not cancel a lock statement past its bound", ex);
		}
	}

	/** The slots taken now (tests). */
	int taken() {
		int taken = 0;
		for (int slot = 0; slot <= mask; slot++) {
			if (deadlines.get(slot) != FREE) {
				taken++;
			}
		}
		return taken;
	}

}
