package dev.distlock.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

import org.jspecify.annotations.Nullable;

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
			return database.run(key, "extend", boundMillis, false,
					session -> session.update(sql.extendExclusive, leaseMs, nominalLease, key, token) == 1);
		}
		return database.run(key, "extend", boundMillis, true, session -> {
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
		return database.run(key, "check ownership of", boundMillis, false,
				session -> !session.query(sql.heldBy, rs -> 1, key, shared ? token : "", token).isEmpty());
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
		boolean released = database.run(key, "release", boundMillis, shared, session -> {
			boolean postgres = session.dialect() == JdbcDialect.POSTGRESQL;
			int rows;
			if (!shared && postgres) {
				// One round trip: the release and its NOTIFY in one statement.
				String statement = onlyLive ? sql.releaseExclusiveNotifying : sql.releaseExclusiveAnywayNotifying;
				List<@Nullable String> notified = session.query(statement, HolderCalls::namedWaiter, mark, key, token,
						channel);
				rows = notified.size();
				named[0] = firstNamed(notified);
			}
			else if (!shared) {
				rows = session.update(onlyLive ? sql.releaseExclusive : sql.releaseExclusiveAnyway, mark, key, token);
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
			return byHolder && !session.query(sql.releasedBy, rs -> 1, key, shared ? token : "", token).isEmpty();
		});
		if (released) {
			// The waiter the NOTIFY named, as other JVMs wake it; every waiter when it named none (and on MySQL/MariaDB).
			wakeups.wake(key, named[0]);
		}
		return released;
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

	Wakeups wakeups() {
		return wakeups;
	}

}
