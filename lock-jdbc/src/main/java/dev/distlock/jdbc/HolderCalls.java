package dev.distlock.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.LockStoreException;

/**
 * The calls on a granted lock, by key and owner token: extend and release, owner-checked and idempotent per token,
 * shared by the holder's own {@link JdbcLease}, the clean-up of an acquire of unknown outcome, and release and
 * renewal by lock ID. Every release wakes this JVM's waiters and, on PostgreSQL, sends a NOTIFY in the same
 * round trip or transaction; while a waiting writer's mark is live the NOTIFY names it, and only it is woken, here as
 * in other JVMs.
 */
final class HolderCalls {

	private final LockDatabase database;

	private final LockStatements sql;

	private final Wakeups wakeups;

	private final String channel;

	/**
	 * How many times in all a call is run when the server rolls it back to break a deadlock: InnoDB picks its victim
	 * among autocommitted single-row statements too, such as a release's against another session's insert of the key
	 * row. A rolled-back call applied nothing, so running it again gives the answer a healthy store gives.
	 */
	private static final int DEADLOCK_ATTEMPTS = 5;

	/** How many keys {@link #rowsThere} holds at most; it starts afresh when full. */
	private static final int ROWS_THERE = 1024;

	/**
	 * Keys whose row this provider granted or found there, less those whose row its own release deleted: on
	 * PostgreSQL an exclusive attempt on a key not here tries the plain insert first ({@link JdbcAcquirer}). A key
	 * whose row went otherwise (expired and purged, released by another JVM) stays until the set starts afresh; its
	 * attempts then go straight to the upsert, which grants an absent row as well.
	 */
	private final Set<String> rowsThere = ConcurrentHashMap.newKeySet();

	/**
	 * Keys whose row a plain insert of this provider found there ({@link LockStatements#insertExclusiveStrict}): keys
	 * other JVMs lock too, whose first attempt after this provider's own delete is the insert that writes nothing
	 * instead, so the server logs a unique violation once per key. Holds at most {@link #ROWS_THERE} keys; it starts
	 * afresh when full.
	 */
	private final Set<String> contested = ConcurrentHashMap.newKeySet();

	/**
	 * This provider's attempts in flight, by key, counted from before their statement is sent until its reply. A
	 * deleting release keeps the row instead while the key has one ({@link #releaseDeleting}): an insert draws its
	 * fencing token before the database checks the key, so an insert that stalled after drawing its token, while
	 * another holder was granted the key with a later one and deleted its row, would land with the earlier token. The
	 * kept row makes such an insert write nothing, and the grant that follows draws a later token under the row's lock.
	 * This closes that race between the attempts and releases of one provider. Between JVMs, PostgreSQL closes it with
	 * the key's fencing lock ({@link LockStatements#deleteExclusive}), which this rule only spares a delete that
	 * would find the lock taken; on MySQL/MariaDB it stays open between JVMs (docs/JDBC.md, "Fencing tokens").
	 */
	private final Map<String, Integer> attempting = new ConcurrentHashMap<>();

	HolderCalls(LockDatabase database, LockStatements sql, Wakeups wakeups, String channel) {
		this.database = database;
		this.sql = sql;
		this.wakeups = wakeups;
		this.channel = channel;
	}

	/** Sets the lease of the token's lock to {@code leaseMs} from the database's now, if it is still held. */
	boolean extend(String key, String token, boolean shared, long leaseMs,
			@Nullable Long nominalLeaseMs, long boundMillis) {
		Object nominalLease = nominalLeaseMs != null ? nominalLeaseMs : LockDatabase.NULL_BIGINT;
		if (!shared) {
			return run(key, "extend", boundMillis, false,
					session -> session.update(sql.extendExclusive, leaseMs, nominalLease, key, token) == 1);
		}
		return run(key, "extend", boundMillis, true, session -> {
			if (session.query(sql.lockKeyRow, rs -> 1, key).isEmpty()) {
				return false;
			}
			if (session.update(sql.extendShared, leaseMs, nominalLease, key, token) != 1) {
				return false;
			}
			// Recomputed, not raised: an extend may shorten the lease, and a shared_until left at the longer end would
			// refuse writers after every shared holder has gone.
			session.update(sql.recomputeSharedUntil, key, key);
			return true;
		});
	}

	/** Whether the token still holds its lock, live by the database clock; a read that changes nothing. */
	boolean isHeld(String key, String token, boolean shared, long boundMillis) {
		return run(key, "check ownership of", boundMillis, false,
				session -> !session.query(shared ? sql.heldByShared : sql.heldBy, rs -> 1, key, token).isEmpty());
	}

	/**
	 * Releases the token's lock.
	 * @param byHolder whether the holder itself releases: only then is its token kept as the release mark, which a
	 * replayed release reads as "released"
	 * @param onlyLive whether only a live lock is released (the holder's release), or whatever the token holds
	 * (clean-up of an acquire of unknown outcome)
	 * @return whether this call released it, or (by the holder) an earlier one of this token did
	 */
	boolean release(String key, String token, boolean shared, boolean byHolder, boolean onlyLive, long boundMillis) {
		String mark = byHolder ? token : null;
		@Nullable String[] named = new String[1];
		boolean released = run(key, "release", boundMillis, shared, session -> {
			named[0] = null; // a run again after a rolled-back one starts afresh
			boolean postgres = session.dialect() == JdbcDialect.POSTGRESQL;
			int rows;
			if (!shared) {
				rows = clearExclusive(session, key, token, mark, onlyLive, named);
			}
			else {
				session.query(sql.lockKeyRow, rs -> 1, key);
				rows = session.update(onlyLive ? sql.releaseShared : sql.releaseSharedAnyway, mark, key, token);
				if (rows > 0 && postgres) {
					named[0] = firstNamed(session.query(sql.recomputeSharedUntilNotifying, HolderCalls::namedWaiter,
							key, key, channel));
				}
				else if (rows > 0) {
					session.update(sql.recomputeSharedUntil, key, key);
				}
			}
			if (rows > 0) {
				return true;
			}
			if (!byHolder) {
				return false;
			}
			return !(shared ? session.query(sql.releasedByShared, rs -> 1, key, token, token)
					: session.query(sql.releasedBy, rs -> 1, key, token)).isEmpty();
		});
		if (released) {
			// The waiter the NOTIFY named, as other JVMs wake it; every waiter when it named none (and on MySQL/MariaDB).
			wakeups.wake(key, named[0]);
		}
		return released;
	}

	/** An attempt on the key is about to send its statement (see {@link #attempting}). */
	void attemptStarts(String key) {
		attempting.merge(key, 1, Integer::sum);
	}

	/** The attempt {@link #attemptStarts} counted has its reply, or failed. */
	void attemptEnds(String key) {
		attempting.computeIfPresent(key, (k, n) -> n == 1 ? null : n - 1);
	}

	/** Whether the key's row is known to be there (see {@link #rowsThere}). */
	boolean rowKnown(String key) {
		return rowsThere.contains(key);
	}

	/** The key's row is there: granted, or found by an insert that wrote nothing. */
	void rowThere(String key) {
		remember(rowsThere, key);
	}

	/** Whether a plain insert of this provider found the key's row there (see {@link #contested}). */
	boolean contested(String key) {
		return contested.contains(key);
	}

	/** A plain insert found the key's row there. */
	void contest(String key) {
		remember(contested, key);
	}

	private static void remember(Set<String> keys, String key) {
		if (keys.size() >= ROWS_THERE) {
			keys.clear();
		}
		keys.add(key);
	}

	/**
	 * The holder's own release of a plain exclusive lock (a lease, no lock ID, see {@link JdbcLease}): one statement
	 * that deletes the key row ({@link LockStatements#deleteExclusive}) unless a waiter marked it since the grant. When
	 * it deletes nothing, the row is released as {@link #release} does (notifying the waiters), and when that
	 * releases nothing either, the row is read ({@link LockStatements#releaseState}): this token's release mark is a
	 * replay of that release; a row gone, or written by a later grant, is a replay of this holder's delete while its
	 * lease still runs as this JVM counts it ({@code leaseEndNanos}). Nobody else deletes a key row before its lease
	 * ended (the purger waits for the grace after it), and nobody else grants it while the lease runs unless it was
	 * freed, which besides this holder only a forced release (or the clean-up of an earlier failed acquire of this
	 * token) does, keeping the row and this grant's fencing token on it until the next grant; so the answer is wrong
	 * only for a forced release followed by another grant while this lease still runs ("released" instead of "lost").
	 * After the lease ended, the answer is "lost".
	 * @return whether this call released it, or an earlier one of this token did
	 */
	boolean releaseDeleting(String key, String token, long fencingToken, long leaseEndNanos, long boundMillis) {
		@Nullable String[] named = new String[1];
		boolean released = run(key, "release", boundMillis, false, session -> {
			named[0] = null; // a run again after a rolled-back one starts afresh
			// A row a waiter marked is kept and released by clearExclusive, which notifies: the delete never has to.
			// So is a row another attempt of this provider may be inserting now (see attempting).
			if (!attempting.containsKey(key) && session.update(sql.deleteExclusive, key, token) > 0) {
				rowsThere.remove(key);
				return true;
			}
			if (clearExclusive(session, key, token, token, true, named) > 0) {
				return true;
			}
			List<Integer> state = session.query(sql.releaseState, rs -> rs.getInt(1), token, fencingToken, key);
			if (!state.isEmpty() && state.get(0) < 2) {
				return state.get(0) == 1;
			}
			// Read after the row was: a lease still running now was running when the row was read.
			return System.nanoTime() - leaseEndNanos < 0;
		});
		if (released) {
			wakeups.wake(key, named[0]);
		}
		return released;
	}

	/**
	 * Clears the key row of the token's exclusive lock, keeping the row (with {@code mark} as its release mark); on
	 * PostgreSQL with its NOTIFY in the same statement, the waiter it named put in {@code named}.
	 * @return the rows it released
	 */
	private int clearExclusive(LockDatabase.Session session, String key, String token, @Nullable String mark,
			boolean onlyLive, @Nullable String[] named) throws SQLException {
		if (session.dialect() == JdbcDialect.POSTGRESQL) {
			// One round trip: the release and its NOTIFY in one statement.
			String statement = onlyLive ? sql.releaseExclusiveNotifying : sql.releaseExclusiveAnywayNotifying;
			List<@Nullable String> notified = session.query(statement, HolderCalls::namedWaiter, mark, key, token,
					channel);
			named[0] = firstNamed(notified);
			return notified.size();
		}
		return session.update(onlyLive ? sql.releaseExclusive : sql.releaseExclusiveAnyway, mark, key, token);
	}

	/** The owner token a notifying release named in one of its rows, or null when it named none. */
	private static @Nullable String namedWaiter(ResultSet rs) throws SQLException {
		return rs.getString(2);
	}

	/** The waiter a notifying release named: its first row's, or null (no row, or a row naming none). */
	private static @Nullable String firstNamed(List<@Nullable String> notified) {
		return notified.isEmpty() ? null : notified.get(0);
	}

	/** On PostgreSQL, a NOTIFY with the key, delivered when the statement's transaction commits. */
	void notifyOthers(LockDatabase.Session session, String key) throws SQLException {
		if (session.dialect() == JdbcDialect.POSTGRESQL) {
			session.query(sql.notify, rs -> 1, channel, key);
		}
	}

	/**
	 * {@link LockDatabase#run}, run again while the server breaks a deadlock by rolling it back, within the one bound:
	 * a retry is bounded by what is left of it, never less than {@link TimeLimits#FLOOR} (a healthy round trip), and
	 * none starts once it has passed, so the call ends within {@code boundMillis} and one floor.
	 */
	private <T> T run(String key, String operation, long boundMillis, boolean transaction, LockDatabase.Work<T> work) {
		long deadline = System.nanoTime() + boundMillis * 1_000_000L;
		long bound = boundMillis;
		LockStoreException first = null;
		for (int attempt = 1;; attempt++) {
			try {
				return database.run(key, operation, bound, transaction, work);
			}
			catch (LockStoreException ex) {
				long left = deadline - System.nanoTime();
				if (first != null) {
					ex.addSuppressed(first);
				}
				if (attempt == DEADLOCK_ATTEMPTS || left <= 0 || !LockDatabase.isDeadlock(ex.getCause())) {
					throw ex;
				}
				first = first != null ? first : ex;
				bound = Math.max(TimeLimits.FLOOR.toMillis(), left / 1_000_000L);
			}
		}
	}

	Wakeups wakeups() {
		return wakeups;
	}

}
