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
 * Cancels statements that outlive their bound, as the drivers' query timeouts do, without their cost per statement:
 * pgjdbc schedules a task per statement on the JVM-wide {@code PostgreSQL-JDBC-SharedTimer}, then cancels and purges
 * it, which wakes the timer thread and takes its lock on every statement; MariaDB Connector/J sends each statement as
 * {@code SET STATEMENT max_statement_time=N FOR ...}, which cost the server 12-14% of its work on an uncontended lock
 * cycle. Here a statement in flight takes one slot of a fixed array (its deadline, then the statement; no allocation
 * and no lock), and one daemon thread scans the slots every {@link #TICK_NANOS} while any is taken and calls {@link
 * Statement#cancel()} on each overdue statement, which is what the drivers' own timeouts call: pgjdbc sends a cancel
 * request, Connector/J a {@code KILL QUERY} for the connection, on a connection of their own; the server stops the
 * statement and the caller gets the driver's error. The owner gives a slot back only once a cancel of its statement has
 * returned ({@link #release}), so a cancel never reaches the connection's next statement, nor the pool's next borrower
 * of it. The thread parks when no slot is taken (a caller that finds it parked wakes it) and ends after a minute
 * without work. A caller that finds no free slot gets {@code -1} and uses the driver's query timeout instead.
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

	/** The deadline of a slot whose statement's cancel has returned: its owner gives the slot back. */
	private static final long CANCELLED = Long.MIN_VALUE + 1;

	/** The deadline of a slot whose owner stopped waiting for the cancel: the canceller gives the slot back. */
	private static final long ABANDONED = Long.MIN_VALUE + 2;

	/**
	 * How long an owner waits for the cancel of its statement to return before it goes on without: as long as pgjdbc
	 * gives a cancel request by default ({@code cancelSignalTimeout}); a cancel takes that long only when the server
	 * does not answer a new connection, which then has not stopped the statement either.
	 */
	static final long CANCEL_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

	private final long cancelWaitNanos;

	/**
	 * Each slot's deadline ({@link System#nanoTime()}), {@link #FREE}, or the state of its cancel. A slot is taken by a
	 * compare-and-set from {@code FREE} and given back by its owner, statement first (or by the canceller, when the
	 * owner stopped waiting for its cancel), so the watchdog that moved a deadline to {@code CANCELLING} reads that
	 * owner's statement or none.
	 */
	private final AtomicLongArray deadlines;

	private final AtomicReferenceArray<@Nullable Statement> statements;

	/**
	 * Each slot's last deadline its owner gave back; the next owner takes another value, so a scan that read the earlier
	 * owner's deadline and statement and then stalled never wins the compare-and-set against the later owner's. Written
	 * by an owner before it frees the slot (a volatile write), read by the next before it takes it (after reading
	 * {@code FREE}).
	 */
	private final long[] lastDeadlines;

	private final int mask;

	private final Object lifecycle = new Object();

	/** Whether the thread is parked with no slot taken, or gone: a caller that takes a slot then wakes or starts it. */
	private volatile boolean sleeping = true;

	/** Guarded by {@link #lifecycle}. */
	private @Nullable Thread thread;

	/** @param slots a power of two: the statements watched at once, beyond which the driver's timeout is used */
	StatementWatchdog(int slots) {
		this(slots, CANCEL_WAIT_NANOS);
	}

	/** As {@link #StatementWatchdog(int)}, an owner waiting at most {@code cancelWaitNanos} for a cancel (tests). */
	StatementWatchdog(int slots, long cancelWaitNanos) {
		if (Integer.bitCount(slots) != 1) {
			throw new IllegalArgumentException("slots must be a power of two, was " + slots);
		}
		this.deadlines = new AtomicLongArray(slots);
		this.statements = new AtomicReferenceArray<>(slots);
		this.lastDeadlines = new long[slots];
		this.mask = slots - 1;
		this.cancelWaitNanos = cancelWaitNanos;
	}

	/**
	 * Watches a statement about to be executed, until {@link #release}.
	 * @return the slot to release, or {@code -1} when every slot is taken or the watchdog's thread could not be
	 * started (nothing is watched then)
	 */
	int watch(Statement statement, long boundMillis) {
		long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(boundMillis);
		int start = (int) Thread.currentThread().getId();
		for (int i = 0; i <= mask; i++) {
			int slot = (start + i) & mask;
			if (deadlines.get(slot) != FREE) {
				continue;
			}
			long taken = deadline;
			while (!isDeadline(taken) || taken == lastDeadlines[slot]) {
				taken++;
			}
			if (deadlines.compareAndSet(slot, FREE, taken)) {
				statements.set(slot, statement);
				if (sleeping && !wake()) {
					release(slot);
					return -1;
				}
				return slot;
			}
		}
		return -1;
	}

	/**
	 * Gives back a slot {@link #watch} returned, once its statement has ended; does nothing for {@code -1}. While the
	 * watchdog's cancel of the statement is in flight it waits for it (at most {@link #CANCEL_WAIT_NANOS}): a cancel
	 * names the connection, not the statement, and must not land on whatever the connection runs next. After that wait
	 * the slot is left to the canceller, which gives it back when its cancel returns.
	 */
	void release(int slot) {
		if (slot < 0) {
			return;
		}
		// The statement first: a scan that reads none starts no cancel, and one that read it and wins the
		// compare-and-set below makes this owner wait for its cancel.
		statements.set(slot, null);
		while (true) {
			long deadline = deadlines.get(slot);
			if (deadline == CANCELLING) {
				if (!awaitCancel(slot)) {
					return; // ABANDONED: the canceller gives the slot back
				}
				continue;
			}
			// This owner's deadline, or CANCELLED; only a scan moves the deadline meanwhile (to CANCELLING).
			if (deadline != CANCELLED) {
				lastDeadlines[slot] = deadline;
			}
			if (deadlines.compareAndSet(slot, deadline, FREE)) {
				return;
			}
		}
	}

	/** Waits while the slot's cancel is in flight; false when it stopped waiting and left the slot to the canceller. */
	private boolean awaitCancel(int slot) {
		long end = System.nanoTime() + cancelWaitNanos;
		boolean interrupted = false;
		try {
			while (deadlines.get(slot) == CANCELLING) {
				if (System.nanoTime() - end >= 0 && deadlines.compareAndSet(slot, CANCELLING, ABANDONED)) {
					logger.debug("A lock statement's cancel has not returned in time; its connection goes on");
					return false;
				}
				LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(1));
				interrupted |= Thread.interrupted();
			}
			return true;
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/** Wakes or starts the thread; false when it could not be started (no native thread left). */
	private boolean wake() {
		synchronized (lifecycle) {
			sleeping = false;
			Thread current = thread;
			if (current != null) {
				LockSupport.unpark(current);
				return true;
			}
			Thread started = new Thread(this::run, "distlock-jdbc-statement-watchdog");
			started.setDaemon(true);
			try {
				started.start();
			}
			catch (OutOfMemoryError | RuntimeException ex) {
				sleeping = true;
				logger.debug("Could not start the lock statements' watchdog; the driver's query timeout bounds them", ex);
				return false;
			}
			thread = started;
			return true;
		}
	}

	/**
	 * The thread's loop. It ends after a minute without work, saying so under the lock a caller starting another takes;
	 * should it end by an error instead, the thread says so here, and the next statement watched starts another (a
	 * slot taken meanwhile is scanned then).
	 */
	private void run() {
		try {
			loop();
		}
		finally {
			synchronized (lifecycle) {
				if (thread == Thread.currentThread()) {
					thread = null;
					sleeping = true;
				}
			}
		}
	}

	private void loop() {
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
			if (isDeadline(deadline) && now - deadline >= 0) {
				Statement statement = statements.get(slot);
				if (statement != null && deadlines.compareAndSet(slot, deadline, CANCELLING)) {
					cancelAside(slot, statement);
				}
			}
		}
		return taken;
	}

	/**
	 * Cancels on a thread of its own: the drivers send the cancel on a new connection, which a stalled network could
	 * hold up to their connect or cancel timeout, and the other statements' deadlines must not wait for it. When the
	 * cancel returns, the slot says so to its owner, or is given back if the owner stopped waiting.
	 */
	private void cancelAside(int slot, Statement statement) {
		Runnable cancelling = () -> {
			try {
				cancel(statement);
			}
			finally {
				// CANCELLING changes only here or to ABANDONED, by an owner that left the slot to this thread.
				if (!deadlines.compareAndSet(slot, CANCELLING, CANCELLED)) {
					deadlines.compareAndSet(slot, ABANDONED, FREE);
				}
			}
		};
		Thread canceller = new Thread(cancelling, "distlock-jdbc-statement-cancel");
		canceller.setDaemon(true);
		try {
			canceller.start();
		}
		catch (OutOfMemoryError | RuntimeException ex) {
			// No thread for it: cancel here, the other deadlines waiting meanwhile, rather than leave it CANCELLING.
			cancelling.run();
		}
	}

	private static void cancel(Statement statement) {
		try {
			statement.cancel();
		}
		catch (SQLException | RuntimeException ex) {
			logger.debug("Could not cancel a lock statement past its bound", ex);
		}
	}

	private static boolean isDeadline(long value) {
		return value != FREE && value != CANCELLING && value != CANCELLED && value != ABANDONED;
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
