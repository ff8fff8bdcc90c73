package dev.distlock.jdbc;

import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.distlock.core.InvalidLockOptionException;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockRequest;

/**
 * Takes a lock in one attempt, bounded by its lease. Exclusive on PostgreSQL: one {@code INSERT ... ON CONFLICT DO
 * UPDATE ... WHERE} that inserts the key's row or grants it when it is free, expired or already this token's, one
 * round trip whatever the row's state; on a key whose row the provider does not know to be there, a plain
 * {@code INSERT} first, which the server runs for less, and the upsert only when the row was there (two round trips,
 * once per key; the insert carries {@code ON CONFLICT DO NOTHING} for a key whose row it once met). Exclusive on
 * MySQL/MariaDB: an INSERT IGNORE of the key's row, else, when the row exists, an UPDATE under the same conditions:
 * one round trip when the key has no row (new, or freed by a plain release, which deletes it), two when the row was
 * kept and on a refusal. Each statement draws the fencing token from
 * the sequence itself. Shared: one short transaction that locks the key's row, counts the live shared holders and adds
 * this one. A deadlock or serialisation failure rolled back by the server is a refusal, never an error. An attempt
 * that failed in a way that may have left a grant behind has that grant released by owner token before the error is
 * thrown, then again in the background until the grant could no longer land unseen. A lock without expiry is granted
 * for a provisional lease and made lasting by a second, owner-checked statement once the grant's reply is in, so a
 * grant whose reply never comes ends by itself. A replayed acquire (same owner token, lock still held) keeps its
 * fencing token.
 */
final class JdbcAcquirer {

	private static final Log logger = LogFactory.getLog(JdbcAcquirer.class);

	/** Lock IDs and owner names are stored as text of at most this many characters. */
	static final int MAX_TEXT = 255;

	/** The first delay of the background releases, and the one after a release the database answered again. */
	private static final long RETRY_MILLIS = 250;

	/** The longest delay between background releases while the database does not answer. */
	private static final long RETRY_UNANSWERED_MILLIS = 1_000;

	/** The longest delay between background releases once it answers. */
	private static final long RETRY_MAX_MILLIS = 2_000;

	/**
	 * How long the background releases go on at most while the database does not answer; a grant landing later still
	 * ends with the lease it stores (provisional for a lock without expiry).
	 */
	static final Duration SWEEP_LIMIT = Duration.ofMinutes(5);

	private final LockDatabase database;

	private final LockStatements sql;

	private final HolderCalls calls;

	private final Duration callTimeout;

	/** Set when the provider closes: background releases the database does not answer stop then. */
	private volatile boolean closed;

	JdbcAcquirer(LockDatabase database, LockStatements sql, HolderCalls calls, Duration callTimeout) {
		this.database = database;
		this.sql = sql;
		this.calls = calls;
		this.callTimeout = callTimeout;
	}

	/** Stops the background releases that find the database out of reach; the others end with their window. */
	void close() {
		closed = true;
	}

	/**
	 * One attempt, as {@link JdbcLockProvider#tryAcquire} describes it.
	 * @throws InvalidLockOptionException naming {@code timeout} if the lease is not positive or longer than 365 days,
	 * or naming {@code lockId} if it is longer than 255 characters or not well-formed text; nothing is sent then
	 */
	Optional<Lease> tryAcquire(LockRequest request) {
		return attempt(request, (grantMs, bound, seen) -> request.shared() ? grantShared(request, grantMs, bound)
				: grantExclusive(request, grantMs, bound, seen));
	}

	/** What a refused {@link #tryAcquireOrMark} read; the defaults when it did not get so far (nothing is known). */
	static final class Refusal {

		/** Microseconds left on the key's longest lease, from the statement's snapshot; -1 when unknown. */
		long holderLeftMicros = -1;

		/** Whether the key's row carries this writer's mark (written now or before); false when not, or unknown. */
		boolean marked;

		/** Whether this attempt wrote the mark (its validity counts from now). */
		boolean written;

		/** Whether another writer's live mark is on the row, so this one's was not written: releases name that one. */
		boolean otherNamed;

		/** The fencing token on the key's row, from the statement's snapshot; -1 when there was no row, or unknown. */
		long fence = -1;

		/**
		 * Whose live writer mark the statement's snapshot found on the row: 0 none, 1 another writer's, 2 this one's.
		 */
		int writerMark;

	}

	/**
	 * A waiting exclusive request's attempt after its first, on PostgreSQL: the attempt and, when refused, the
	 * writer's mark in one statement ({@link LockStatements#acquireExclusiveOrMark}), the mark rewritten only when
	 * less than half of {@code validityMs} is left on it. Otherwise as {@link #tryAcquire}.
	 * @param mark what the writer's mark holds ({@link Wakeups.Waiter#mark()})
	 * @param refusal filled in when refused
	 */
	Optional<Lease> tryAcquireOrMark(LockRequest request, String mark, long validityMs, Refusal refusal) {
		return attempt(request, (grantMs, bound, seen) -> grantExclusiveOrMark(request, mark, grantMs, bound,
				validityMs, refusal, seen));
	}

	/** One grant statement (or transaction): the fencing token, or null when refused. */
	@FunctionalInterface
	private interface Grant {

		@Nullable Long grant(long grantMs, long bound, Seen seen);

	}

	/** What an exclusive grant saw of the key's row. */
	private static final class Seen {

		/**
		 * Whether a waiter's mark on the row was live at the grant, or ended within
		 * {@link JdbcAcquisition#NOTIFY_GRACE} (PostgreSQL: read from the grant itself; a marked writer's own grant).
		 * Its release then keeps the row first, as a waiting writer's mark needs and as the deleting release would
		 * refuse such a row, instead of trying the delete and then the kept-row release, two round trips while the key
		 * is contended.
		 */
		boolean waiter;

	}

	private Optional<Lease> attempt(LockRequest request, Grant grant) {
		long bound = bound(request);
		long grantMs = grantLeaseMillis(request, bound);
		checkText("lockId", request.lockId());
		long start = System.nanoTime();
		Seen seen = new Seen();
		Long fence;
		// Counted while its statement may draw a fencing token: a deleting release of the key keeps the row meanwhile.
		calls.attemptStarts(request.key());
		try {
			fence = grant.grant(grantMs, bound, seen);
		}
		catch (LockStoreException ex) {
			if (LockDatabase.isRolledBack(ex.getCause())) {
				logger.debug("Lock '" + request.key() + "' refused: the database rolled the attempt back", ex);
				return Optional.empty();
			}
			if (LockDatabase.mayHaveRun(ex.getCause())) {
				releaseUnknownGrant(request, bound, ex);
			}
			throw ex;
		}
		finally {
			calls.attemptEnds(request.key());
		}
		if (fence == null) {
			return Optional.empty();
		}
		// Each step after the grant writes only while the key's row still carries it. One that fails is released
		// all the same, whatever its statement did (a lock under an ID its ID cannot find, a provisional lease), and
		// the acquire fails; one that finds the grant gone (forced, or by lock ID) means it was not granted after all.
		if (recordsLockId(request)
				&& !afterGrant(request, bound, "its ID was recorded", () -> recordLockId(request, bound))) {
			return Optional.empty();
		}
		if (request.noExpiry()
				&& !afterGrant(request, bound, "it was made lasting", () -> makeLasting(request, bound))) {
			return Optional.empty();
		}
		long leaseNanos = request.noExpiry() ? TimeLimits.MAX_LEASE.toNanos() : request.lease().toNanos();
		// The holder's release deletes the row of a plain exclusive lock (a lease, no lock ID) nobody waited for.
		boolean deletable = !request.shared() && !request.noExpiry() && request.lockId() == null && !seen.waiter;
		return Optional.of(new JdbcLease(calls, request.key(), request.token(), request.shared(), fence,
				start + leaseNanos, callTimeout, deletable));
	}

	/** A step after a grant: false when the grant was gone, its failure released and thrown. */
	private boolean afterGrant(LockRequest request, long bound, String step, BooleanSupplier call) {
		boolean done;
		try {
			done = call.getAsBoolean();
		}
		catch (LockStoreException ex) {
			releaseUnknownGrant(request, bound, ex);
			throw ex;
		}
		if (!done) {
			logger.debug("Lock '" + request.key() + "' was gone before " + step);
		}
		return done;
	}

	/**
	 * The lease the grant statement stores: the request's, or for a lock without expiry a provisional one of twice the
	 * attempt's bound (three times under a lock ID, whose record comes between), made lasting by {@link #makeLasting}
	 * once the grant's reply is in. A grant whose reply never
	 * comes (a statement held up past the client's bound, landing after every clean-up release) is then held by a
	 * token nobody has only until that provisional lease ends, never indefinitely.
	 */
	private static long grantLeaseMillis(LockRequest request, long boundMillis) {
		return request.noExpiry() ? (recordsLockId(request) ? 3 : 2) * boundMillis
				: TimeLimits.leaseMs("timeout", request.lease());
	}

	/** Whether the grant is followed by the record of its lock ID (an exclusive grant under one). */
	private static boolean recordsLockId(LockRequest request) {
		return request.lockId() != null && !request.shared();
	}

	/**
	 * Turns the provisional lease of a grant without expiry into none, if this token still holds it: the holder's
	 * owner-checked extend (token, lease still running), so a late copy of it finds the provisional lease over and
	 * changes nothing. Bounded by the attempt's own bound, as is the lock ID's record before it, so both end before
	 * the provisional lease does.
	 */
	private boolean makeLasting(LockRequest request, long boundMillis) {
		return calls.extend(request.key(), request.token(), request.shared(), TimeLimits.NO_EXPIRY_MS, null,
				boundMillis);
	}

	/**
	 * Records an exclusive grant under a lock ID in the lock-ID table, so that release and renewal by ID find it: one
	 * statement that writes only while the key's row carries this grant. Nothing written means a replayed grant
	 * (recorded already) or a lock taken away since (forced, or expired and granted to another): a read of the row
	 * tells which. Runs before a lock without expiry is made lasting, so a holder that dies in between leaves only a
	 * provisional lease.
	 */
	private boolean recordLockId(LockRequest request, long boundMillis) {
		Object[] args = { request.key(), request.token(), request.lockId() };
		return database.run(request.key(), "record the lock ID", boundMillis, false,
				session -> session.update(sql.recordLockId, args) == 1
						|| !session.query(sql.carriesLockId, rs -> 1, args).isEmpty());
	}

	private @Nullable Long grantExclusive(LockRequest request, long leaseMs, long bound, Seen seen) {
		Object nominalLease = nominalLease(request, leaseMs);
		String owner = text(request.owner().owner());
		String host = text(request.owner().host());
		if (sql.acquireExclusive != null) {
			// PostgreSQL: insert or grant on conflict, one statement whatever the row's state. A key whose row this
			// provider does not know to be there gets an insert first: a plain release deletes the row, so it is
			// usually absent, and the server starts the insert up at a fraction of the upsert's cost. That insert has
			// no conflict clause, which costs the server less again, unless it once found the key's row there (a key
			// other JVMs lock too): the row there fails it, and the upsert follows as after an insert that wrote
			// nothing. A row found there, or granted, makes the key known, and the upsert grants or refuses as always
			// (on the same connection).
			String key = request.key();
			boolean insertFirst = !calls.rowKnown(key);
			boolean strict = insertFirst && !calls.contested(key);
			// The key twice: the row's, then the key's fencing lock's (LockStatements.fenced).
			Object[] row = { key, request.token(), owner, host, request.lockId(), key, leaseMs, nominalLease };
			long[] granted = database.run(key, "acquire", bound, false, session -> {
				if (insertFirst) {
					Long fence = strict ? insertStrict(session, key, row) : session.returning(sql.insertExclusive, row);
					if (fence != null) {
						return new long[] { fence, 0 };
					}
				}
				return session.returningTwo(sql.acquireExclusive, row);
			});
			calls.rowThere(key);
			if (granted == null) {
				return null;
			}
			seen.waiter = granted[1] == 1;
			return granted[0];
		}
		return database.run(request.key(), "acquire", bound, false, session -> {
			// Three cases: the row is absent (the insert, one statement: a plain release deletes the row, so this is
			// the common case), it exists and is grantable (the insert writes nothing, the grant a second statement),
			// or it exists and is held (neither writes: refused). Each hands back its fencing token as LAST_INSERT_ID.
			String token = request.token();
			Long fence = session.returning(sql.insertExclusive, request.key(), token, owner, host, request.lockId(),
					leaseMs, nominalLease);
			if (fence == null) {
				fence = session.returning(sql.grantExclusive, token, token, owner, host, request.lockId(), leaseMs,
						nominalLease, request.key(), token);
			}
			return fence;
		});
	}

	/**
	 * {@link LockStatements#insertExclusiveStrict}: the fencing token, or null when the key's row was there (the
	 * server's unique violation, which rolled the insert back; the connection goes on in autocommit).
	 */
	private @Nullable Long insertStrict(LockDatabase.Session session, String key, Object[] row) throws SQLException {
		try {
			return session.returning(sql.insertExclusiveStrict, row);
		}
		catch (SQLException ex) {
			if (!LockDatabase.isUniqueViolation(ex)) {
				throw ex;
			}
			calls.contest(key);
			return null;
		}
	}

	private @Nullable Long grantExclusiveOrMark(LockRequest request, String mark, long leaseMs, long bound,
			long validityMs, Refusal refusal, Seen seen) {
		Object nominalLease = nominalLease(request, leaseMs);
		String owner = text(request.owner().owner());
		String host = text(request.owner().host());
		String key = request.key();
		String token = request.token();
		long[] row = database.run(key, "acquire", bound, false, session -> session.query(sql.acquireExclusiveOrMark,
				rs -> new long[] { rs.getObject(1) != null ? rs.getLong(1) : -1, rs.getObject(2) != null ? 1 : 0,
						rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(5),
						rs.getObject(6) != null ? rs.getLong(6) : -1, rs.getLong(7) },
				key, token, owner, host, request.lockId(), key, leaseMs, nominalLease, key, token, mark, validityMs,
				key, mark, validityMs / 2, mark, validityMs / 2, mark, mark, key)).get(0);
		if (row[0] >= 0) {
			seen.waiter = true; // this writer's own mark: its waiter_until stays, and others may wait
			return row[0];
		}
		refusal.holderLeftMicros = row[1] == 1 ? Math.max(0, row[2]) : 0;
		refusal.written = row[4] > 0;
		refusal.marked = row[4] > 0 || row[3] > 0;
		refusal.otherNamed = !refusal.marked && row[5] > 0;
		refusal.fence = row[6];
		refusal.writerMark = (int) row[7];
		return null;
	}

	private @Nullable Long grantShared(LockRequest request, long leaseMs, long bound) {
		Object nominalLease = nominalLease(request, leaseMs);
		String owner = text(request.owner().owner());
		String host = text(request.owner().host());
		String key = request.key();
		return database.run(key, "acquire", bound, true, session -> {
			List<int[]> keyRow = session.query(sql.lockKeyRow, rs -> new int[] { rs.getInt(1), rs.getInt(2) }, key);
			if (keyRow.isEmpty()) {
				session.update(sql.insertFreeKeyRow, key);
				keyRow = session.query(sql.lockKeyRow, rs -> new int[] { rs.getInt(1), rs.getInt(2) }, key);
			}
			if (keyRow.get(0)[0] == 1) {
				return null; // a live exclusive holder
			}
			boolean writerWaits = keyRow.get(0)[1] == 1;
			List<Object[]> rows = session.query(sql.sharedRows,
					rs -> new Object[] { rs.getString(1), rs.getString(2), rs.getInt(3) == 1 }, key, request.token());
			boolean mine = false;
			boolean mineLive = false;
			int live = 0;
			boolean sameId = false;
			for (Object[] row : rows) {
				boolean rowLive = (Boolean) row[2];
				if (request.token().equals(row[0])) {
					mine = true;
					mineLive = rowLive;
				}
				else if (rowLive) {
					live++;
					sameId |= request.lockId() != null && request.lockId().equals(row[1]);
				}
			}
			// A live slot of this very token is a replayed acquire: granted again, no second slot. A new holder needs
			// room, no waiting writer (writer priority) and no other live holder under the same lock ID.
			if (!mineLive && (live >= request.maxConcurrent() || writerWaits || sameId)) {
				return null;
			}
			Long fence = mine
					? session.returning(sql.regrantShared, owner, host, request.lockId(), leaseMs, nominalLease,
							key, request.token())
					: session.returning(sql.insertShared, key, request.token(), request.token(), owner, host,
							request.lockId(), leaseMs, nominalLease);
			session.update(sql.afterSharedGrant, fence, key, key);
			if (request.lockId() != null) {
				// In the grant's transaction: a shared grant under a lock ID is recorded or not made.
				session.update(sql.recordSharedLockId, key, request.token(), request.lockId());
			}
			return fence;
		});
	}

	/**
	 * Releases whatever the request's token holds, now and in the background until the grant could no longer land
	 * unseen: for the lease its grant statement stores (for a lock without expiry, the provisional lease), counted
	 * again from each release that the database did not answer. While the database does not answer, the acquire may
	 * still be queued before it (a pooled connection, a paused server) and land once it answers again, after every
	 * release so far; so the releases go on, at most a second apart, and come quickly once it answers again.
	 */
	private void releaseUnknownGrant(LockRequest request, long bound, LockStoreException acquireError) {
		long window = TimeUnit.MILLISECONDS.toNanos(grantLeaseMillis(request, bound));
		long now = System.nanoTime();
		Sweep sweep = new Sweep(request, window, now + window, now + SWEEP_LIMIT.toNanos());
		try {
			if (releaseByToken(request)) {
				logger.info("Released lock '" + request.key() + "': the acquire whose reply failed had been granted");
			}
		}
		catch (LockStoreException ex) {
			acquireError.addSuppressed(ex);
			sweep = sweep.unanswered();
		}
		sweep.next(RETRY_MILLIS);
	}

	/** The background releases after one failed acquire: until when, and whether the last one went unanswered. */
	private final class Sweep {

		private final LockRequest request;

		private final long windowNanos;

		private final long untilNanos;

		private final long limitNanos;

		private final boolean unanswered;

		Sweep(LockRequest request, long windowNanos, long untilNanos, long limitNanos) {
			this(request, windowNanos, untilNanos, limitNanos, false);
		}

		private Sweep(LockRequest request, long windowNanos, long untilNanos, long limitNanos, boolean unanswered) {
			this.request = request;
			this.windowNanos = windowNanos;
			this.untilNanos = untilNanos;
			this.limitNanos = limitNanos;
			this.unanswered = unanswered;
		}

		/** After a release the database did not answer: the window starts again from now, up to the limit. */
		Sweep unanswered() {
			long now = System.nanoTime();
			long until = Math.max(untilNanos, Math.min(limitNanos, now + windowNanos));
			return new Sweep(request, windowNanos, until, limitNanos, true);
		}

		Sweep answered() {
			return new Sweep(request, windowNanos, untilNanos, limitNanos, false);
		}

		void next(long delayMillis) {
			if (System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMillis) - untilNanos >= 0) {
				return;
			}
			if (closed && unanswered) {
				// Closed and the database out of reach (or its pool closed): the stored lease ends the grant.
				return;
			}
			CompletableFuture.runAsync(() -> {
				Sweep after;
				try {
					if (releaseByToken(request)) {
						logger.info("Released lock '" + request.key() + "': a failed acquire landed late");
					}
					after = answered();
				}
				catch (RuntimeException ex) {
					logger.debug("Release of lock '" + request.key() + "' after a failed acquire failed again", ex);
					after = unanswered();
				}
				long nextDelay;
				if (after.unanswered) {
					nextDelay = Math.min(delayMillis * 2, RETRY_UNANSWERED_MILLIS);
				}
				else if (unanswered) {
					nextDelay = RETRY_MILLIS; // answering again: a held-up acquire lands about now
				}
				else {
					nextDelay = Math.min(delayMillis * 2, RETRY_MAX_MILLIS);
				}
				after.next(nextDelay);
			}, CompletableFuture.delayedExecutor(delayMillis, TimeUnit.MILLISECONDS));
		}

	}

	private boolean releaseByToken(LockRequest request) {
		long bound = TimeLimits.leaseBoundMillis(request.lease().toNanos(), callTimeout);
		return dev.distlock.core.spi.Interrupts.uninterruptibly(
				() -> calls.release(request.key(), request.token(), request.shared(), false, false, bound));
	}

	private static Object nominalLease(LockRequest request, long leaseMs) {
		return request.noExpiry() ? LockDatabase.NULL_BIGINT : leaseMs;
	}

	/** The bound of one acquire: its lease, between the floor and the call timeout. */
	private long bound(LockRequest request) {
		return TimeLimits.leaseBoundMillis(request.noExpiry() ? callTimeout.toNanos() : request.lease().toNanos(),
				callTimeout);
	}

	/**
	 * Checks text stored in a column of {@link #MAX_TEXT} characters that is compared (a lock ID): well-formed UTF-16
	 * without NUL, which PostgreSQL cannot store and UTF-8 cannot tell apart.
	 */
	static void checkText(String option, @Nullable String value) {
		if (value == null) {
			return;
		}
		if (value.length() > MAX_TEXT) {
			throw new InvalidLockOptionException(option,
					"must be at most " + MAX_TEXT + " characters for the JDBC lock store, was " + value.length());
		}
		int i = unstorableAt(value);
		if (i >= 0) {
			throw new InvalidLockOptionException(option, value.charAt(i) == 0
					? "must not contain NUL (U+0000) at index " + i
					: "must be well-formed UTF-16 (lone surrogate at index " + i + ")");
		}
	}

	/** The index of the first NUL or lone surrogate in the value, or -1 when it has none. */
	private static int unstorableAt(String value) {
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c == 0) {
				return i;
			}
			if (Character.isHighSurrogate(c) && i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1))) {
				i++;
			}
			else if (Character.isSurrogate(c)) {
				return i;
			}
		}
		return -1;
	}

	/**
	 * Owner names and hosts are only shown, never compared: made storable (no NUL, no lone surrogate, at most
	 * {@link #MAX_TEXT} characters) instead of refused.
	 */
	static @Nullable String text(@Nullable String value) {
		if (value == null || value.length() <= MAX_TEXT && unstorableAt(value) < 0) {
			return value; // as nearly every owner and host is: no copy on every acquire
		}
		StringBuilder out = new StringBuilder(Math.min(value.length(), MAX_TEXT));
		for (int i = 0; i < value.length() && out.length() < MAX_TEXT; i++) {
			char c = value.charAt(i);
			if (Character.isHighSurrogate(c) && i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1))) {
				if (out.length() + 2 > MAX_TEXT) {
					break;
				}
				out.append(c).append(value.charAt(++i));
			}
			else {
				out.append(c == 0 || Character.isSurrogate(c) ? '\uFFFD' : c);
			}
		}
		return out.toString();
	}

}
