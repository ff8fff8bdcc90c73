package dev.distlock.jdbc;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.distlock.core.spi.Acquisition;
import dev.distlock.core.spi.LockRequest;

/**
 * A waiting acquisition on a relational database. Made by {@link JdbcLockProvider#start} only once the first attempt
 * is refused ({@link #afterRefusal}), or by {@link JdbcLockProvider#begin} before any; it registers for wake-ups before
 * the statement that marks the row and reads the lease left, so a release is never missed (one before the
 * registration leaves no lease to read). After a refused attempt it reads how long the holder's lease has left and
 * waits at most that long (an expiry sends no notification), and at most as long as the template's backoff. It is
 * woken early by a release in this JVM and, on PostgreSQL, by a NOTIFY from any. While an exclusive request waits it keeps a mark on the key's
 * row that refuses new shared holders (writer priority), renewed per attempt for a short validity on the database
 * clock, withdrawn by the grant or {@link #close()}. The mark and the read of the lease left are one statement, so a
 * refused exclusive attempt costs two round trips in all on PostgreSQL, three on MySQL/MariaDB (whose attempt is two).
 * On PostgreSQL a marked writer's later attempts are one statement each, the attempt and the mark together
 * ({@link JdbcAcquirer#tryAcquireOrMark}), and the mark is rewritten only when half its validity has run out; the
 * first attempt stays the plain one, so an uncontended acquire is one statement. A release that finds a live writer mark names that
 * writer in its NOTIFY and wakes only it ({@link Wakeups}). The named writer's attempt reads the row in its own
 * snapshot and attempts only where that finds the key free, in the same statement: one whose releasing holder took
 * the key again at once does not queue for the row lock behind that holder's statements, and one that finds the key
 * free is granted in the round trip of its read. A writer not named first reads the row without locking it, and
 * waits again while a lease runs and a writer mark lives ({@link #heldStill}). While the key cycles (each read finds
 * a later grant than the one before), the named writer stops counting on notifications and attempts every
 * {@link #CYCLING_STEP} until a read finds the same grant again. On PostgreSQL a waiting reader leaves a mark too, one that
 * gives no priority: both keep the row's {@code waiter_until} live while they wait, which is what makes a release send
 * its NOTIFY (a release nobody waits for sends none). No connection is held while it waits.
 */
final class JdbcAcquisition implements Acquisition {

	private static final Log logger = LogFactory.getLog(JdbcAcquisition.class);

	/** The least a mark lives: attempts on a loaded machine come further apart than the backoff says. */
	static final Duration MIN_MARK = Duration.ofSeconds(1);

	/** The most a mark lives, whatever the backoff: a writer that died keeps readers out no longer. */
	static final Duration MAX_MARK = Duration.ofSeconds(30);

	/**
	 * On PostgreSQL, how long after a mark ends releases of the key still notify: a wait longer than the mark (the
	 * template's backoff decides it after the mark was written) is still woken, and stops at the end of this grace.
	 */
	static final Duration NOTIFY_GRACE = Duration.ofSeconds(30);

	/**
	 * On PostgreSQL, the longest wait of a writer that knows another writer is named: its JVM may not listen, so a
	 * release naming nobody (after the named writer's grant) may not wake it, and it reads the row at least this often
	 * whatever the template's backoff, without using up a retry.
	 */
	static final Duration NOT_NAMED_STEP = Duration.ofMillis(100);

	/**
	 * On PostgreSQL, how often the named writer reads the key's row while the key cycles: while each of its reads finds
	 * a later grant than the one before (the holder releases and takes the key again, or others do, faster than a
	 * notification reaches the writer and its read reaches the row), it stops counting on notifications and attempts
	 * this often instead, each attempt reading the row first in its own snapshot ({@link #sawRow}). At least a healthy
	 * round trip; a hand-off it catches comes within one step and one round trip of the release.
	 */
	static final Duration CYCLING_STEP = Duration.ofMillis(3);

	private static final long ADMIN_MS = TimeLimits.ADMIN.toMillis();

	/** The key's row was gone when the mark was to be written. */
	private static final long NO_ROW = -2;

	private final JdbcAcquirer acquirer;

	private final LockDatabase database;

	private final LockStatements sql;

	private final LockRequest request;

	private final Wakeups.Waiter waiter;

	private long lastWaitMillis;

	/**
	 * On PostgreSQL, when releases stop notifying for the last mark ({@link System#nanoTime()}, counted from before the
	 * mark was sent): its end and the {@link #NOTIFY_GRACE}. A wait stops there; the attempt that follows marks again.
	 */
	private long notifiedUntilNanos;

	/** Whether releases notify only while a mark lives (PostgreSQL); false where nothing notifies. */
	private final boolean notified;

	/** Microseconds left on the holder's lease at the last refusal, or -1 when unknown. */
	private long holderLeftMicros = -1;

	private boolean marked;

	/**
	 * On PostgreSQL, whether this named writer waits by reading the key's row every {@link #CYCLING_STEP} instead of
	 * by notifications, because the key cycles ({@link #sawRow}).
	 */
	private boolean cycling;

	/** The fencing token on the key's row at this writer's last read of it, or -1 before the first. */
	private long lastFence = -1;

	JdbcAcquisition(JdbcAcquirer acquirer, LockDatabase database, LockStatements sql, Wakeups wakeups,
			LockRequest request) {
		this.acquirer = acquirer;
		this.database = database;
		this.sql = sql;
		this.request = request;
		this.waiter = wakeups.register(request.key(), request.token(), request.shared());
		this.notified = sql.markReaderRemaining != null;
	}

	/**
	 * The acquisition that goes on from a refused first attempt ({@link JdbcLockProvider#start}): it registers for
	 * wake-ups, then marks the key's row and reads the lease left, as after any refusal. A release between the refused
	 * attempt and the registration is seen by that read (no lease left: the next attempt comes at once), one after it
	 * wakes this waiter, so none is missed.
	 */
	static JdbcAcquisition afterRefusal(JdbcAcquirer acquirer, LockDatabase database, LockStatements sql,
			Wakeups wakeups, LockRequest request) {
		JdbcAcquisition acquisition = new JdbcAcquisition(acquirer, database, sql, wakeups, request);
		try {
			acquisition.refused(acquisition.markValidityMillis());
		}
		catch (RuntimeException | Error ex) {
			// Nobody else holds it yet to close it: withdraw the registration (and a mark the statement may have left).
			try {
				acquisition.close();
			}
			catch (RuntimeException closing) {
				ex.addSuppressed(closing);
			}
			throw ex;
		}
		return acquisition;
	}

	@Override
	public Optional<Granted> tryOnce() {
		waiter.beforeStatements();
		long sent = System.nanoTime();
		long validityMs = markValidityMillis();
		if (marked && sql.acquireExclusiveOrMark != null) {
			// A writer that knows another is named has no mark to renew: it reads first, and attempts (and may mark)
			// only when the read finds the key free or no live writer mark on it. The named writer's attempt reads
			// the row itself: it attempts only where its snapshot finds the key free, so on a key held still it
			// neither locks the row nor, while its mark has more than half its validity left, writes anything.
			if (!waiter.listens() && !cycling && heldStill()) {
				return Optional.empty();
			}
			// A marked writer's later attempts mark with the attempt, in one statement. It counts itself in by what the
			// statement found, once it returns: a release naming it between the two either reaches this JVM's LISTEN
			// connection, listening for another waiter throughout, or comes before a LISTEN whose wake-up it gets (the
			// one its count starts; one another waiter's count started, and it then wakes itself: Wakeups.Waiter).
			// A writer not named that finds the key free and loses the race to another so never makes this JVM LISTEN.
			JdbcAcquirer.Refusal refusal = new JdbcAcquirer.Refusal();
			Optional<Granted> granted = acquirer.tryAcquireOrMark(request, waiter.mark(), validityMs, refusal)
				.map(lease -> new Granted(lease, sent));
			if (granted.isPresent()) {
				marked = false; // an exclusive grant removes the mark
				return granted;
			}
			sawRow(refusal.fence, refusal.holderLeftMicros, refusal.writerMark);
			if (refusal.marked) {
				// Named: it counts on notifications unless the key cycles (it attempts at its own step then).
				waiter.listens(!cycling);
				holderLeftMicros = refusal.holderLeftMicros;
				if (refusal.written) {
					notifiedUntilNanos = sent + validityMs * 1_000_000L + NOTIFY_GRACE.toNanos();
				}
				return granted;
			}
			cycling = false; // its mark is gone: it waits as any refused writer does
			if (refusal.otherNamed) {
				notNamed(refusal.holderLeftMicros);
				return granted;
			}
			refused(validityMs);
			return granted;
		}
		// The plain attempt (one statement, uncontended).
		Optional<Granted> granted = acquirer.tryAcquire(request).map(lease -> new Granted(lease, sent));
		if (granted.isPresent()) {
			marked = marked && request.shared(); // an exclusive grant removes the mark
			return granted;
		}
		refused(validityMs);
		return granted;
	}

	/**
	 * After a refused attempt that left no mark: marks the key's row (a writer with priority, a reader on PostgreSQL
	 * only for notifications) and reads the lease left, in one statement; on MySQL/MariaDB a reader reads the lease
	 * left alone.
	 */
	private void refused(long validityMs) {
		long sent = System.nanoTime();
		notifiedUntilNanos = sent + validityMs * 1_000_000L + NOTIFY_GRACE.toNanos();
		if (!request.shared() && sql.markWaiterUnlessNamed != null) {
			// Counts itself in after the mark, by what the mark found (see markUnlessNamed).
			markUnlessNamed(validityMs);
			return;
		}
		waiter.listens(true); // before the mark: see tryOnce
		if (!request.shared()) {
			holderLeftMicros = markReadingLease(sql.markWaiterRemaining, validityMs);
			marked |= holderLeftMicros >= 0;
			if (holderLeftMicros == NO_ROW) {
				holderLeftMicros = 0;
			}
		}
		else if (sql.markReaderRemaining != null) {
			// A reader's mark only asks releases to notify, and ends by itself: nothing to withdraw.
			holderLeftMicros = markReadingLease(sql.markReaderRemaining, validityMs);
			if (holderLeftMicros == NO_ROW) {
				holderLeftMicros = 0;
			}
		}
		else {
			holderLeftMicros = remainingMicros(); // MySQL/MariaDB: no notifications, so a shared waiter sets no mark
		}
	}

	@Override
	public @Nullable Duration longestWait() {
		if (!notified || !marked || waiter.listens()) {
			return null;
		}
		return cycling ? CYCLING_STEP : NOT_NAMED_STEP;
	}

	@Override
	public boolean awaitSignal(Duration max) throws InterruptedException {
		lastWaitMillis = max.toMillis();
		Duration wait = max;
		if (holderLeftMicros >= 0) {
			// Wake when the holder's lease runs out, a little after, by the database's count.
			Duration untilLeaseEnd = Duration.ofNanos(holderLeftMicros * 1_000L).plusMillis(1);
			wait = untilLeaseEnd.compareTo(max) < 0 ? untilLeaseEnd : max;
		}
		if (notified && notifiedUntilNanos != 0 && waiter.listens()) {
			// Releases notify only while a mark lives, and for the grace after it (one nobody waits for sends none).
			Duration untilNotifiesEnd = Duration.ofNanos(Math.max(0, notifiedUntilNanos - System.nanoTime()));
			wait = untilNotifiesEnd.compareTo(wait) < 0 ? untilNotifiesEnd : wait;
		}
		return waiter.await(wait);
	}

	/**
	 * On PostgreSQL, for a marked writer that does not count on notifications and does not cycle (one that knows
	 * another writer is named), whose wait ended at its timer or with every waiter of the key: whether a plain read of
	 * the key's row, which neither locks nor writes it, finds a lease still running (an exclusive holder's or a
	 * reader's) and a live waiting writer's mark (this one's or another's). Then the waiter waits again, without an
	 * attempt's heavier statement. Nothing is missed: while a writer's mark lives a release sends a NOTIFY naming that
	 * writer (a read that finds this one named makes it count on notifications), a lease that ends unreleased is read
	 * here as ended, and a key left with no writer mark (the named writer was granted) is marked by the usual attempt,
	 * so releases keep naming one writer instead of waking every waiter. False when the read finds the key free or
	 * unmarked or fails: the usual attempt follows.
	 */
	private boolean heldStill() {
		try {
			List<long[]> row = database.run(request.key(), "read the holder's lease", ADMIN_MS, false,
					session -> session.query(sql.remainingMarked,
							rs -> new long[] { rs.getLong(1), rs.getLong(2), rs.getLong(3) }, waiter.mark(),
							request.key()));
			if (row.isEmpty()) {
				return false;
			}
			if (!sawRow(row.get(0)[2], row.get(0)[0], (int) row.get(0)[1])) {
				return false;
			}
			holderLeftMicros = row.get(0)[0];
			// Releases name the writer whose mark is on the row: while it is another's, this JVM need not listen for
			// this waiter, which wakes at its own timers and marks again when the row has no live writer mark.
			waiter.listens(row.get(0)[1] == 2 && !cycling);
			return true;
		}
		catch (RuntimeException ex) {
			logger.debug("Could not read the lease left on lock '" + request.key() + "'", ex);
			return false;
		}
	}

	/**
	 * What a read of the key's row found (the plain read, or the snapshot of a marked writer's attempt): its fencing
	 * token (-1 when unknown), the lease left on it and whose live writer mark is on it (0 none, 1 another's, 2 this
	 * writer's). Whether the key is held still and marked; then also whether the key cycles for this writer, the named
	 * one. The caller counts the writer in or out, once, by all its statement found.
	 */
	private boolean sawRow(long fence, long leftMicros, int writerMark) {
		boolean granted = lastFence >= 0 && fence >= 0 && fence != lastFence;
		if (fence >= 0) {
			lastFence = fence;
		}
		if (leftMicros <= 0 || writerMark == 0) {
			return false;
		}
		// The named writer needs no notification while the key cycles: each of its reads finds a later grant than the
		// last, so the releases that woke it were taken again before its read came, each costing this JVM a wake-up
		// and a read, and its listening backend a signal on every notifying commit. It attempts every CYCLING_STEP
		// instead, and counts on notifications again once a read finds the same grant as the one before (the holder
		// holds on).
		cycling = writerMark == 2 && granted;
		return true;
	}

	@Override
	public void close() {
		waiter.close();
		if (marked) {
			clearWaiter();
		}
	}

	private long markValidityMillis() {
		return Math.min(MAX_MARK.toMillis(), Math.max(MIN_MARK.toMillis(), 3 * lastWaitMillis));
	}

	/**
	 * Marks the key's row (as a waiting writer or reader, by the statement) and reads what is left of its longest
	 * lease, in microseconds; {@link #NO_ROW} when the row is gone (nothing marked), -1 when the statement failed (the
	 * mark may have been written).
	 */
	private long markReadingLease(String statement, long validityMs) {
		boolean writer = !request.shared();
		try {
			Long left = database.run(request.key(), writer ? "mark a waiting writer" : "mark a waiting reader",
					ADMIN_MS, false, session -> writer
							? session.returning(statement, waiter.mark(), validityMs, request.key())
							: session.returning(statement, validityMs, request.key()));
			if (left == null) {
				return NO_ROW;
			}
			return Math.max(0, sql.dialect().returning() ? left : left - 1);
		}
		catch (RuntimeException ex) {
			logger.debug("Could not mark a " + (writer ? "writer" : "reader") + " waiting for lock '" + request.key()
					+ "'", ex);
			return -1;
		}
	}

	/**
	 * On PostgreSQL, a refused writer's mark: written only where no other writer's live mark is on the row. A named
	 * writer is then woken by the release naming it, and its attempts read the row in their own snapshot; one not named
	 * wakes at its own timers, reads the row first ({@link #heldStill}), and marks once the row has no live writer
	 * mark.
	 */
	private void markUnlessNamed(long validityMs) {
		List<long[]> rows;
		try {
			rows = database.run(request.key(), "mark a waiting writer", ADMIN_MS, false,
					session -> session.query(sql.markWaiterUnlessNamed,
							rs -> new long[] { rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4) },
							waiter.mark(), validityMs, request.key(), waiter.mark(), request.key()));
		}
		catch (RuntimeException ex) {
			logger.debug("Could not mark a writer waiting for lock '" + request.key() + "'", ex);
			holderLeftMicros = -1; // the mark may have been written: this waiter keeps counting itself in
			waiter.listens(true);
			return;
		}
		if (rows.isEmpty()) {
			holderLeftMicros = 0; // the key's row is gone: the next attempt comes at once
			waiter.listens(true);
			return;
		}
		long[] row = rows.get(0);
		marked = true;
		holderLeftMicros = Math.max(0, row[0]);
		lastFence = row[2];
		// Named on a key whose holder was granted within the last step: the key has just changed hands, as it does
		// again and again while it cycles. The writer reads at its own step from the start rather than LISTEN for
		// releases that are likely taken again before its read; its first read that finds the same grant makes it
		// count on notifications (sawRow). Counted in only now: a release between the mark and the LISTEN is
		// covered by the wake-up that follows the LISTEN (Wakeups).
		boolean named = row[1] == 1;
		cycling = named && row[3] == 1;
		waiter.listens(named && !cycling);
	}

	/**
	 * A writer's attempt found another writer's live mark and left it: releases name that writer until its grant. This
	 * one waits at its own timers, reading the row first ({@link #heldStill}).
	 */
	private void notNamed(long leftMicros) {
		holderLeftMicros = leftMicros;
		waiter.listens(false);
	}

	private long remainingMicros() {
		try {
			List<Long> left = database.run(request.key(), "read the holder's lease", ADMIN_MS, false,
					session -> session.query(sql.remaining, rs -> rs.getLong(1), request.key()));
			return left.isEmpty() ? 0 : Math.max(0, left.get(0));
		}
		catch (RuntimeException ex) {
			logger.debug("Could not read the lease left on lock '" + request.key() + "'", ex);
			return -1;
		}
	}

	private void clearWaiter() {
		try {
			dev.distlock.core.spi.Interrupts.uninterruptibly(() -> database.run(request.key(),
					"withdraw a waiting writer", ADMIN_MS, false,
					session -> session.update(sql.clearWaiter, request.key(), waiter.mark())));
		}
		catch (RuntimeException ex) {
			logger.debug("Could not withdraw the waiting mark on lock '" + request.key() + "'; it ends by itself", ex);
		}
	}

}
