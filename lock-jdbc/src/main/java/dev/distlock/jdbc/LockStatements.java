package dev.distlock.jdbc;

import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * Every statement the provider sends, for one dialect and table, built once. Each time comparison is on the database
 * clock inside the statement ({@link JdbcDialect#now()}). The acquire path touches one row by its primary key; only
 * a shared grant, a shared release or extension and a forced release run as short transactions, always locking the
 * key's row first, so two transactions never wait for each other in opposite orders.
 * <p>The lock table holds one row per key, keyed by the key alone, carrying the exclusive holder, the latest fencing
 * token, the end of the latest shared lease ({@code shared_until}) and a waiting writer's mark. Shared holders have a
 * table of their own ({@code <table>_shared}), one row per holder keyed by the key and its owner token
 * ({@code holder}), so the exclusive lock's row, the one on every hot path, has a one-column key: the server's
 * work per uncontended cycle on PostgreSQL is about 5% less than with both kinds of row in one table keyed by
 * {@code (lock_key, holder)} (docs/BENCHMARKS.md). The holder's release of a plain exclusive lock (a lease, no lock ID)
 * deletes the key row, as the floor's owner-checked DELETE does, unless a waiter needs it kept
 * ({@link #deleteExclusive}); the fencing token comes from the sequence, never from the row, so a key inserted again
 * gets a later one than every grant before its statement began; on PostgreSQL than every grant before it too (the
 * key's fencing lock, {@link #fenced}), on MySQL/MariaDB only among one provider's own (docs/JDBC.md, "Fencing
 * tokens"). Other releases keep the rows (the key row with the release mark a replayed release reads); the purger
 * deletes them after the grace.
 * <p>Lock IDs are found through a second table ({@code <table>_ids}), not an index on the lock table: a grant under
 * a lock ID records its key, holder, owner and fencing token there ({@link #recordLockId}), so grants without one
 * (the hot path) insert no index entry. Lookups join it to the lock table or the shared holders' (the record's
 * {@code holder} is empty for a key row), so a record whose lock has moved on is skipped; the purger deletes those.
 */
final class LockStatements {

	/** The columns of a status row, in order. */
	static final String INFO_COLUMNS = "lock_key, holder, token, owner_name, owner_host, lock_id, fence, acquired_at, "
			+ "renewed_at, ttl_ms, released";

	/**
	 * The session variable in which MariaDB's exclusive grant keeps its replay condition (this token's live lock) for
	 * the assignments after the first.
	 */
	static final String MARIADB_REPLAY = "@distlock_replay";

	/**
	 * On MySQL/MariaDB, exclusive grant of an existing key row: free, expired or already this token's, with no live
	 * shared holder; its arguments are the token, the token, owner, host, lock ID, lease, nominal lease, key and token.
	 * Null on PostgreSQL, where {@link #acquireExclusive} grants in one statement.
	 */
	final @Nullable String grantExclusive;

	/**
	 * Exclusive grant by inserting the key row; a row already there makes it write nothing. Its arguments are the key,
	 * token, owner, host, lock ID, lease and nominal lease; on PostgreSQL the key again after the lock ID (the key's
	 * fencing lock, {@link #fenced}), as in every insert of the key row there. On PostgreSQL it returns the fencing
	 * token when it inserted; it is the first attempt on a key whose row the provider has not found there lately
	 * ({@link JdbcAcquirer}), as the server starts it up at a fraction of {@link #acquireExclusive}'s cost (no
	 * conflict action to build), and {@link #acquireExclusive} follows when it wrote nothing.
	 */
	final String insertExclusive;

	/**
	 * On PostgreSQL, {@link #insertExclusive} without {@code ON CONFLICT}: where the row is there it fails with a
	 * unique violation (SQLState 23505) instead of writing nothing. The server runs a plain insert for about 5% less
	 * of its CPU per lock cycle than an insert with a conflict clause, which it runs as a speculative insertion (the
	 * heap tuple, the index entry, then a separate confirmation, logged on its own). It is the first attempt on a key
	 * whose row this provider deleted itself, or never found there ({@link JdbcAcquirer}); once it meets the row there,
	 * the key gets {@link #insertExclusive} from then on, so the server logs that error once per key and JVM. Null on
	 * MySQL/MariaDB.
	 */
	final @Nullable String insertExclusiveStrict;

	/**
	 * On PostgreSQL, the whole exclusive attempt in one statement: the insert of the key row, or on conflict the
	 * grant of the existing row under the same conditions as {@link #grantExclusive}, returning the fencing token
	 * when it granted (and 1 when a waiter's mark on the row is live or ended within
	 * {@link JdbcAcquisition#NOTIFY_GRACE}, else 0: the release then keeps the row first)
	 * and nothing when refused. The token of a grant on conflict is drawn after the row is locked,
	 * so it is later than every grant before it. Null on MySQL/MariaDB.
	 */
	final @Nullable String acquireExclusive;

	/**
	 * On PostgreSQL, a waiting writer's later attempt: {@link #acquireExclusive} and, when it refuses, the writer's
	 * mark, in one statement. The attempt runs only where the statement's snapshot finds the key free (or held by this
	 * very token): a key held still is read, not locked, so the attempt costs no row lock behind the holder's
	 * statements, and a writer that finds the key free attempts in the same round trip as its read. The mark is
	 * written (by a second data-modifying CTE, which sees the attempt's result and re-checks the row's latest version
	 * under the row lock it takes, the one lock it takes on a key held still) only when the row's mark is not this
	 * writer's with at least the given time left, so a live writer mark exists whenever this statement refuses, but
	 * where the snapshot found another writer's live mark that its grant cleared after the snapshot (the UPDATE then
	 * passes the row by). Returns one row: the fencing token (null when
	 * refused); the lease left on the key in microseconds, whether the mark is this writer's with the given time left,
	 * whether it wrote the mark, whether another writer's live mark is on the row, the row's fencing token, and whose
	 * live writer mark is on it (0 none, 1 another's, 2 this writer's), all read from the statement's snapshot (taken
	 * before the attempt). Null on MySQL/MariaDB.
	 */
	final @Nullable String acquireExclusiveOrMark;

	/** The exclusive holder's own extend. */
	final String extendExclusive;

	/**
	 * The holder's release of a plain exclusive lock (with a lease, no lock ID) whose grant saw no waiter: deletes the
	 * key row while this token holds it live and no waiter needs it kept, else deletes nothing (the row is then
	 * released by {@link #releaseExclusive}); arguments key and token. On MySQL/MariaDB a live waiting writer's mark
	 * keeps the row (so the mark keeps refusing new shared holders). On PostgreSQL so does any waiter's mark, live or
	 * ended within {@link JdbcAcquisition#NOTIFY_GRACE}: exactly the rows whose release notifies
	 * ({@link #releaseExclusiveNotifying}), so this statement has nobody to notify and carries no {@code RETURNING},
	 * whose projection the server would build on every call; and so does an insert of the key in flight, from this
	 * JVM or another (the key's fencing lock, {@link #fenced}). It leaves no release mark: a replay reads
	 * {@link #releaseState}.
	 */
	final String deleteExclusive;

	/**
	 * After a holder's release found nothing to release: 1 when the key row carries this token's release mark, 0 when
	 * it still carries the holder's fencing token (this grant, expired or taken away by force or clean-up), 2 when it
	 * was written by a later grant; no row when it is gone. Arguments token, fencing token, key.
	 */
	final String releaseState;

	/** Releases the exclusive holder's lock while it is live; the first argument is the release mark (or null). */
	final String releaseExclusive;

	/** Releases whatever the token holds exclusively, live or not (after an acquire of unknown outcome). */
	final String releaseExclusiveAnyway;

	/**
	 * On PostgreSQL, {@link #releaseExclusive} and the NOTIFY of the release in one statement, returning a row only
	 * when it released; the last argument is the channel. Null on MySQL/MariaDB.
	 */
	final @Nullable String releaseExclusiveNotifying;

	/** On PostgreSQL, {@link #releaseExclusiveAnyway} and its NOTIFY in one statement, as above; null elsewhere. */
	final @Nullable String releaseExclusiveAnywayNotifying;

	/**
	 * Whether the key row's last release was this token's own (a replayed release answers as the first did):
	 * arguments key and token.
	 */
	final String releasedBy;

	/** {@link #releasedBy} for a shared holder's row: arguments key, token and token. */
	final String releasedByShared;

	/** Whether the token still holds the key row exclusively, live by the database clock: arguments key and token. */
	final String heldBy;

	/** Whether the token's shared holder's row is live by the database clock: arguments key and token. */
	final String heldByShared;

	/** Locks the key row for a shared grant; reads whether an exclusive holder and a waiting writer are live. */
	final String lockKeyRow;

	/** Inserts a free key row, so a shared grant has a row to lock. */
	final String insertFreeKeyRow;

	/** The key's live shared holders, and this token's row whatever its state. */
	final String sharedRows;

	/** A shared grant to a token that has a row already (a replayed acquire). */
	final String regrantShared;

	/** A shared grant to a new holder. */
	final String insertShared;

	/** After a shared grant: the key row records the latest token and how long the live shared holders last. */
	final String afterSharedGrant;

	/** A shared holder's own extend. */
	final String extendShared;

	/** Releases a shared holder while live; the first argument is the release mark (or null). */
	final String releaseShared;

	/** Releases whatever the token holds shared, live or not. */
	final String releaseSharedAnyway;

	/** After a shared release: shared_until becomes the latest end among the live shared holders. */
	final String recomputeSharedUntil;

	/** On PostgreSQL, {@link #recomputeSharedUntil} and the NOTIFY of the key in one statement; null elsewhere. */
	final @Nullable String recomputeSharedUntilNotifying;

	/** Whether anyone holds the key. */
	final String isLocked;

	/** What is left of the key's longest live lease, in microseconds (what a refused waiter may wait for). */
	final String remaining;

	/**
	 * {@link #remaining} and whose live waiting writer's mark is on the key's row (2 the given mark's, 1 another's, 0
	 * none) and the row's fencing token (which every grant raises), a plain read that neither locks nor writes the
	 * row: what a marked writer woken by its timer reads first ({@link JdbcAcquisition}).
	 */
	final String remainingMarked;

	/** A waiting writer marks the key row so new shared holders are refused. */
	final String markWaiter;

	/**
	 * {@link #markWaiter} handing back {@link #remaining} of the key in the same statement: on PostgreSQL with
	 * RETURNING, on MySQL/MariaDB as LAST_INSERT_ID (the microseconds plus one), as a fencing token is.
	 */
	final String markWaiterRemaining;

	/**
	 * On PostgreSQL, what a refused writer without a mark runs instead of {@link #markWaiterRemaining}: it marks the
	 * key's row only when no other writer's live mark is on it, and hands back the lease left, whether it marked
	 * (1 or 0), the row's fencing token, and whether its exclusive holder was granted less than
	 * {@link JdbcAcquisition#CYCLING_STEP} ago (1 or 0); no row when the key's row is gone. Null on MySQL/MariaDB.
	 */
	final @Nullable String markWaiterUnlessNamed;

	/**
	 * On PostgreSQL, a waiting reader's mark, handing back {@link #remaining} as {@link #markWaiterRemaining} does: it
	 * sets only {@code waiter_until}, so releases notify until then, and gives no writer priority. It never extends a
	 * live writer's mark (a writer that died would keep readers out for as long as they wait); it drops an ended one.
	 * Null on MySQL/MariaDB, which have no notifications: a reader there reads {@link #remaining}.
	 */
	final @Nullable String markReaderRemaining;

	/** The waiting writer withdraws its own writer priority; waiter_until stays, so releases notify until then. */
	final String clearWaiter;

	/** Forced release of the key row. */
	final String forceKeyRow;

	/** Forced release of the key's shared holders. */
	final String forceShared;

	/** The rows of a key prefix, for status. */
	final String statusRows;

	/**
	 * Records an exclusive grant under a lock ID in the lock-ID table, while the key's row still carries the grant
	 * (its token and ID; a lease shorter than the round trip may have ended, as it may for any grant): arguments key,
	 * token and lock ID. It writes nothing when the record is there already (a replayed grant) or the grant is gone,
	 * which {@link #carriesLockId} tells apart.
	 */
	final String recordLockId;

	/** {@link #recordLockId} for a shared grant, inside its transaction: arguments key, token and lock ID. */
	final String recordSharedLockId;

	/** Whether the key row still carries the exclusive grant: arguments key, token and lock ID. */
	final String carriesLockId;

	/** The rows of one lock ID: its records in the lock-ID table joined to the rows that still carry it. */
	final String lockIdRows;

	/** Drops a lock ID from an expired key row: arguments key and lock ID. */
	final String clearExpiredLockId;

	/** Drops a lock ID from an expired shared holder's row: arguments key, holder and lock ID. */
	final String clearExpiredSharedLockId;

	/** Renewal by lock ID of one exclusive row. */
	final String renewExclusive;

	/**
	 * Picks the rows the purger may delete, skipping rows others have locked: a scan in no particular order (no index
	 * on {@code expires_at}, which every grant rewrites) that stops at the batch size.
	 */
	final String purgeCandidates;

	/** Deletes one purged key row, if it is still past the grace. */
	final String purgeRow;

	/** {@link #purgeCandidates} among the shared holders' rows. */
	final String purgeSharedCandidates;

	/** Deletes one purged shared holder's row, if it is still past the grace. */
	final String purgeSharedRow;

	/**
	 * Picks the lock-ID records whose lock no longer carries their token and ID (released, expired and purged, taken
	 * by another grant), skipping records others have locked, up to the batch size.
	 */
	final String purgeLockIdCandidates;

	/** Deletes one stale lock-ID record (lock ID, fencing token), if it is still stale. */
	final String purgeLockIdRow;

	/** The cheapest round trip. */
	final String ping = "SELECT 1";

	/** The database clock, the one every lease is counted on. */
	final String clock;

	/** Wakes other JVMs' waiters on PostgreSQL: a notification on the table's channel, sent on commit. */
	final String notify = "SELECT pg_notify(?, ?)";

	/**
	 * The statements prepared on the server on MariaDB Connector/J ({@link LockDatabase}): an exclusive lock's
	 * uncontended cycle, its renewal and a waiting writer's attempts, the calls sent many times a second. Only these, as
	 * each prepared statement on each pooled connection counts against the server's {@code max_prepared_stmt_count}
	 * (16,382 by default): seven per connection. Empty on PostgreSQL, where pgjdbc prepares a statement on the server
	 * by itself once a connection has run it five times.
	 */
	final Set<String> serverPrepared;

	private final JdbcDialect dialect;

	LockStatements(JdbcDialect dialect, String table, String sequence, String ids, String shared) {
		this.dialect = dialect;
		String now = dialect.now();
		this.clock = "SELECT " + now + " AS store_now";
		String plus = dialect.nowPlusMillis();
		String next = dialect.nextFence(sequence);
		String epoch = dialect.epoch();
		String returning = dialect.returning() ? " RETURNING fence" : "";
		String insertInto = dialect == JdbcDialect.POSTGRESQL ? "INSERT INTO " : "INSERT IGNORE INTO ";
		String onConflict = dialect == JdbcDialect.POSTGRESQL ? " ON CONFLICT (lock_key) DO NOTHING" : "";
		String live = "expires_at > " + now;
		// The key's row as an exclusive grant inserts it: the column list and values every insert of it shares. On
		// PostgreSQL its fencing token is drawn under the key's fencing lock (fenced), whose key is the sixth argument.
		boolean postgres = dialect == JdbcDialect.POSTGRESQL;
		String fence = postgres ? fenced(table, next) : next;
		String exclusiveColumns = " (lock_key, token, owner_name, owner_host, lock_id, fence, acquired_at, "
				+ "expires_at, ttl_ms, shared_until)";
		String exclusiveRow = exclusiveColumns + " VALUES (?, ?, ?, ?, ?, " + fence + ", " + now + ", " + plus
				+ ", ?, " + epoch + ")";
		// Both dialects: the plain insert, which writes nothing where the row is there.
		this.insertExclusive = insertInto + table + exclusiveRow + onConflict + returning;
		this.insertExclusiveStrict = postgres ? "INSERT INTO " + table + exclusiveRow + returning : null;
		@Nullable String upsert = null;
		@Nullable String gatedUpsert = null;
		// A grant to the token that still holds the row (a replayed acquire whose first reply was lost) keeps its
		// fencing token, acquisition and renewal time and a waiting writer's mark, and only restarts the lease.
		if (dialect == JdbcDialect.POSTGRESQL) {
			// ON CONFLICT DO UPDATE locks the conflicting row, then checks WHERE and evaluates SET on its latest
			// version: nextval() in SET is drawn after every earlier grant of the row. The one in VALUES is drawn
			// (and wasted) by every attempt on an existing row; the sequence only has to increase. The grant ends
			// its own writer mark (waiter: the token, or the token behind a listener's tag, see Wakeups.Waiter.mark)
			// but keeps another writer's, which still waits and is the one the next release names, and keeps
			// waiter_until, until when other waiters may still wait and releases notify.
			String t = "t.";
			String mineNow = t + "token = EXCLUDED.token AND " + t + live;
			String grantOnConflict = " ON CONFLICT (lock_key) DO UPDATE "
					+ "SET fence = CASE WHEN " + mineNow + " THEN t.fence ELSE nextval('" + sequence + "') END, "
					+ "acquired_at = CASE WHEN " + mineNow + " THEN t.acquired_at ELSE EXCLUDED.acquired_at END, "
					+ "renewed_at = CASE WHEN " + mineNow + " THEN t.renewed_at ELSE NULL END, "
					+ "waiter = CASE WHEN " + mineNow + " OR (t.waiter <> EXCLUDED.token AND (NOT " + tagged("t.waiter")
					+ " OR substr(t.waiter, " + (PostgresListener.TAG_LENGTH + 2) + ") <> EXCLUDED.token)) "
					+ "THEN t.waiter ELSE NULL END, "
					+ "token = EXCLUDED.token, owner_name = EXCLUDED.owner_name, owner_host = EXCLUDED.owner_host, "
					+ "lock_id = EXCLUDED.lock_id, expires_at = EXCLUDED.expires_at, ttl_ms = EXCLUDED.ttl_ms, "
					+ "released = NULL WHERE " + grantable("t", "EXCLUDED.token", now) + " RETURNING t.fence, CASE WHEN "
					+ "t.waiter_until > " + notifyUntil(dialect) + " THEN 1 ELSE 0 END AS waited";
			upsert = "INSERT INTO " + table + " AS t" + exclusiveRow + grantOnConflict;
			this.acquireExclusive = upsert;
			// A waiting writer's attempt runs only where the statement's snapshot finds the key free (or held by this
			// very token, a replayed grant): the same conditions as the grant's, read without locking the row, so an
			// attempt on a key held still does not queue for its row lock behind the holder's statements. The upsert's
			// own WHERE decides the grant on the row's latest version, as ever. INSERT ... SELECT inserts nothing when
			// the read finds the key held; its values are cast, as they have no column to take their types from.
			String free = "NOT EXISTS (SELECT 1 FROM " + table + " g WHERE g.lock_key = ? AND NOT "
					+ grantable("g", "?", now) + ")";
			gatedUpsert = "INSERT INTO " + table + " AS t" + exclusiveColumns + " SELECT CAST(? AS TEXT), "
					+ "CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), " + fence + ", " + now + ", "
					+ plus + ", CAST(? AS BIGINT), " + epoch + " WHERE " + free + grantOnConflict;
			this.grantExclusive = null;
		}
		else {
			// The replay condition is evaluated once, in the first assignment, into a session variable the later
			// ones read (MariaDB evaluates SET left to right): one bound token and one comparison instead of five,
			// a shorter text for the driver and the server to parse on every call (9 parameters instead of 13).
			// The variable is always assigned before it is read, so a value left on a pooled connection by an
			// earlier statement is never seen.
			String replay = MARIADB_REPLAY;
			String stillMine = "token = ? AND " + live;
			this.grantExclusive = "UPDATE " + table + " SET fence = LAST_INSERT_ID(IF(" + replay + " := " + stillMine
					+ ", fence, NEXTVAL(" + sequence + "))), acquired_at = IF(" + replay + ", acquired_at, " + now
					+ "), renewed_at = IF(" + replay + ", renewed_at, NULL), waiter = IF(" + replay
					+ ", waiter, NULL), waiter_until = IF(" + replay + ", waiter_until, NULL), token = ?, "
					+ "owner_name = ?, owner_host = ?, lock_id = ?, expires_at = " + plus + ", ttl_ms = ?, "
					+ "released = NULL WHERE lock_key = ? AND (token IS NULL OR expires_at <= " + now
					+ " OR token = ?) AND shared_until <= " + now;
			this.acquireExclusive = null;
		}
		this.extendExclusive = "UPDATE " + table + " SET expires_at = " + plus + ", ttl_ms = ?, renewed_at = " + now
				+ " WHERE lock_key = ? AND token = ? AND " + live;
		// On MariaDB the release writes only what a free row is read by: no token (free), no lock ID (not found by
		// ID), the lease ended now and the release mark. The owner, host, nominal lease and renewal time stay until
		// the next grant overwrites them; nothing reads them on a row without a token (status skips it). Each column
		// whose value changes costs InnoDB a field in the update vector and the undo record.
		String clearExclusive = dialect == JdbcDialect.POSTGRESQL
				? "UPDATE " + table + " SET token = NULL, owner_name = NULL, owner_host = NULL, "
						+ "lock_id = NULL, expires_at = " + now + ", ttl_ms = NULL, renewed_at = NULL, released = ? "
						+ "WHERE lock_key = ? AND token = ?"
				: "UPDATE " + table + " SET token = NULL, lock_id = NULL, expires_at = " + now + ", released = ? "
						+ "WHERE lock_key = ? AND token = ?";
		this.releaseExclusive = clearExclusive + " AND " + live;
		this.releaseExclusiveAnyway = clearExclusive;
		this.releaseExclusiveNotifying = notifying(dialect, releaseExclusive);
		this.releaseExclusiveAnywayNotifying = notifying(dialect, releaseExclusiveAnyway);
		// The filter of the mark that keeps the row, written so that a row with no mark (NULL columns) passes it.
		this.deleteExclusive = "DELETE FROM " + table + " WHERE lock_key = ? AND token = ? AND " + live
				+ (postgres
						? " AND (waiter_until IS NULL OR waiter_until <= " + notifyUntil(dialect) + ") AND "
								+ fencingLockFree(table)
						: " AND (waiter IS NULL OR waiter_until IS NULL OR waiter_until <= " + now + ")");
		this.releaseState = "SELECT CASE WHEN released = ? THEN 1 WHEN fence = ? THEN 0 ELSE 2 END FROM " + table
				+ " WHERE lock_key = ?";
		this.releasedBy = "SELECT 1 FROM " + table + " WHERE lock_key = ? AND released = ?";
		this.releasedByShared = "SELECT 1 FROM " + shared + " WHERE lock_key = ? AND holder = ? AND released = ?";
		this.heldBy = "SELECT 1 FROM " + table + " WHERE lock_key = ? AND token = ? AND " + live;
		this.heldByShared = "SELECT 1 FROM " + shared + " WHERE lock_key = ? AND holder = ? AND " + live;
		String writerLive = liveWriterMark(dialect);
		this.lockKeyRow = "SELECT CASE WHEN token IS NOT NULL AND " + live + " THEN 1 ELSE 0 END, "
				+ "CASE WHEN " + writerLive + " THEN 1 ELSE 0 END FROM " + table
				+ " WHERE lock_key = ? FOR UPDATE";
		this.insertFreeKeyRow = insertInto + table + " (lock_key, fence, expires_at, shared_until) VALUES (?, "
				+ "0, " + epoch + ", " + epoch + ")" + onConflict;
		this.sharedRows = "SELECT holder, lock_id, CASE WHEN " + live + " THEN 1 ELSE 0 END FROM " + shared
				+ " WHERE lock_key = ? AND (" + live + " OR holder = ?)";
		// As for the exclusive grant: a holder still live keeps its fencing token and acquisition time.
		this.regrantShared = "UPDATE " + shared + " SET fence = " + dialect.keepOrNextFence(live, sequence)
				+ ", acquired_at = CASE WHEN " + live + " THEN acquired_at ELSE " + now + " END, "
				+ "renewed_at = CASE WHEN " + live + " THEN renewed_at ELSE NULL END, "
				+ "owner_name = ?, owner_host = ?, lock_id = ?, expires_at = " + plus + ", ttl_ms = ?, "
				+ "released = NULL WHERE lock_key = ? AND holder = ?" + returning;
		this.insertShared = "INSERT INTO " + shared + " (lock_key, holder, token, owner_name, owner_host, lock_id, fence, "
				+ "acquired_at, expires_at, ttl_ms) VALUES (?, ?, ?, ?, ?, ?, " + next + ", " + now + ", " + plus + ", ?)"
				+ returning;
		this.extendShared = "UPDATE " + shared + " SET expires_at = " + plus + ", ttl_ms = ?, renewed_at = " + now
				+ " WHERE lock_key = ? AND holder = ? AND " + live;
		String clearShared = "UPDATE " + shared + " SET expires_at = " + now + ", released = ?, lock_id = NULL "
				+ "WHERE lock_key = ? AND holder = ?";
		this.releaseShared = clearShared + " AND " + live;
		this.releaseSharedAnyway = clearShared;
		// The latest end among the key's live shared holders (the epoch when none), the key row's shared_until.
		String sharedEnd = "COALESCE((SELECT MAX(s.expires_at) FROM " + shared + " s WHERE s.lock_key = ? AND "
				+ "s.expires_at > " + now + "), " + epoch + ")";
		this.recomputeSharedUntil = "UPDATE " + table + " SET shared_until = " + sharedEnd + " WHERE lock_key = ?";
		this.recomputeSharedUntilNotifying = notifying(dialect, recomputeSharedUntil);
		// Recomputed from the live shared rows, not raised: a replayed grant restarts the holder's lease from now,
		// which may shorten it, and a shared_until left at the longer end would refuse writers after it ended.
		this.afterSharedGrant = "UPDATE " + table + " SET fence = GREATEST(fence, ?), shared_until = " + sharedEnd
				+ " WHERE lock_key = ?";
		this.isLocked = "SELECT (SELECT COUNT(*) FROM " + table + " WHERE lock_key = ? AND " + live + ") + "
				+ "(SELECT COUNT(*) FROM " + shared + " WHERE lock_key = ? AND " + live + ")";
		String left = dialect.microsUntil("GREATEST(CASE WHEN token IS NOT NULL THEN expires_at ELSE " + epoch
				+ " END, shared_until)");
		this.remaining = "SELECT " + left + " FROM " + table + " WHERE lock_key = ?";
		this.remainingMarked = "SELECT " + left + ", CASE WHEN " + writerLive + " THEN CASE WHEN waiter = ? "
				+ "THEN 2 ELSE 1 END ELSE 0 END, fence FROM " + table + " WHERE lock_key = ?";
		this.markWaiter = "UPDATE " + table + " SET waiter = ?, waiter_until = " + plus
				+ " WHERE lock_key = ?";
		// MariaDB has no RETURNING on UPDATE: the lease left (plus one, so that none left is not 0, which the driver
		// reads as no value) is the statement's LAST_INSERT_ID, which the OK packet carries.
		this.markWaiterRemaining = dialect == JdbcDialect.POSTGRESQL ? markWaiter + " RETURNING " + left
				: markWaiter + " AND LAST_INSERT_ID(GREATEST(0, " + left + ") + 1) > 0";
		// PostgreSQL: a writer marks only a row without another writer's live mark, so the writer a release names
		// stays named until its grant (or its mark ends), and the others know they are not named.
		this.markWaiterUnlessNamed = dialect == JdbcDialect.POSTGRESQL ? "WITH marked AS (UPDATE " + table
				+ " SET waiter = ?, waiter_until = " + plus + " WHERE lock_key = ? AND NOT COALESCE("
				+ "waiter <> ? AND waiter_until > " + now + ", FALSE) RETURNING 1) SELECT " + left
				+ ", (SELECT COUNT(*) FROM marked), fence, CASE WHEN token IS NOT NULL AND acquired_at > "
				+ now + " - INTERVAL '" + JdbcAcquisition.CYCLING_STEP.toMillis() + " milliseconds' THEN 1 ELSE 0 END FROM "
				+ table + " WHERE lock_key = ?" : null;
		this.markReaderRemaining = dialect == JdbcDialect.POSTGRESQL ? "UPDATE " + table + " SET waiter = CASE WHEN "
				+ writerLive + " THEN waiter ELSE NULL END, waiter_until = CASE WHEN " + writerLive
				+ " THEN waiter_until ELSE GREATEST(COALESCE(waiter_until, " + epoch + "), " + plus + ") END "
				+ "WHERE lock_key = ? RETURNING " + left : null;
		// The mark is rewritten when less than the given time is left on it (its second and fifth parameters), not
		// after each refusal: a waiter woken again and again by releases it loses keeps its mark in place.
		this.acquireExclusiveOrMark = gatedUpsert == null ? null
				: "WITH attempt AS (" + gatedUpsert + "), marked AS (UPDATE " + table + " SET waiter = ?, "
						+ "waiter_until = " + plus + " WHERE lock_key = ? AND NOT EXISTS (SELECT 1 FROM "
						+ "attempt) AND (waiter IS NULL OR waiter_until IS NULL OR waiter_until <= " + now
						+ " OR (waiter = ? AND waiter_until <= " + plus + ")) RETURNING 1) "
						// The key's row as the snapshot has it, read once (no row: every column null or 0).
						+ "SELECT (SELECT fence FROM attempt), " + left + ", CASE WHEN waiter = ? AND waiter_until > "
						+ plus + " THEN 1 ELSE 0 END, (SELECT COUNT(*) FROM marked), CASE WHEN waiter <> ? AND "
						+ "waiter_until > " + now + " THEN 1 ELSE 0 END, fence, CASE WHEN " + writerLive + " THEN CASE "
						+ "WHEN waiter = ? THEN 2 ELSE 1 END ELSE 0 END FROM (SELECT 1) AS one LEFT JOIN " + table
						+ " ON lock_key = ?";
		this.clearWaiter = "UPDATE " + table + " SET waiter = NULL WHERE lock_key = ? AND waiter = ?";
		// expires_at first: MySQL/MariaDB evaluate SET left to right, later assignments seeing earlier ones.
		this.forceKeyRow = "UPDATE " + table + " SET expires_at = CASE WHEN token IS NOT NULL AND " + live + " THEN "
				+ now + " ELSE expires_at END, token = NULL, owner_name = NULL, owner_host = NULL, lock_id = NULL, "
				+ "ttl_ms = NULL, renewed_at = NULL, released = NULL, shared_until = " + epoch
				+ " WHERE lock_key = ?";
		this.forceShared = "UPDATE " + shared + " SET expires_at = " + now + ", lock_id = NULL WHERE lock_key = ? AND "
				+ live;
		this.statusRows = "SELECT " + statusColumns(dialect, "", true) + " FROM " + table
				+ " WHERE lock_key LIKE ? ESCAPE '!' UNION ALL SELECT " + statusColumns(dialect, "", false) + " FROM "
				+ shared + " WHERE lock_key LIKE ? ESCAPE '!' ORDER BY lock_key, holder";
		String insertIdInto = (dialect == JdbcDialect.POSTGRESQL ? "INSERT INTO " : "INSERT IGNORE INTO ") + ids
				+ " (lock_id, fence, token, lock_key, holder) SELECT lock_id, fence, token, lock_key, ";
		String idConflict = dialect == JdbcDialect.POSTGRESQL ? " ON CONFLICT (lock_id, fence) DO NOTHING" : "";
		this.recordLockId = insertIdInto + "'' FROM " + table + " WHERE lock_key = ? AND token = ? AND lock_id = ?"
				+ idConflict;
		this.recordSharedLockId = insertIdInto + "holder FROM " + shared
				+ " WHERE lock_key = ? AND holder = ? AND lock_id = ?" + idConflict;
		this.carriesLockId = "SELECT 1 FROM " + table + " WHERE lock_key = ? AND token = ? AND lock_id = ?";
		this.lockIdRows = "SELECT " + statusColumns(dialect, "t.", true) + " FROM " + ids + " i JOIN " + table
				+ " t ON " + carried("i", false) + " WHERE i.lock_id = ? UNION ALL SELECT "
				+ statusColumns(dialect, "t.", false) + " FROM " + ids + " i JOIN " + shared + " t ON "
				+ carried("i", true) + " WHERE i.lock_id = ? ORDER BY fence DESC";
		this.clearExpiredLockId = "UPDATE " + table + " SET lock_id = NULL WHERE lock_key = ? AND lock_id = ? AND "
				+ "expires_at <= " + now;
		this.clearExpiredSharedLockId = "UPDATE " + shared + " SET lock_id = NULL WHERE lock_key = ? AND holder = ? AND "
				+ "lock_id = ? AND expires_at <= " + now;
		this.renewExclusive = extendExclusive;
		this.serverPrepared = dialect == JdbcDialect.POSTGRESQL ? Set.of()
				: Set.of(insertExclusive, grantExclusive, deleteExclusive, releaseExclusive, extendExclusive,
						markWaiterRemaining, remaining);
		String pastGrace = "expires_at < " + dialect.nowMinusMillis();
		this.purgeCandidates = "SELECT lock_key FROM " + table + " WHERE " + pastGrace
				+ " AND shared_until < " + dialect.nowMinusMillis() + " AND (waiter_until IS NULL OR waiter_until < "
				+ now + ") LIMIT ? FOR UPDATE SKIP LOCKED";
		this.purgeRow = "DELETE FROM " + table + " WHERE lock_key = ? AND " + pastGrace;
		this.purgeSharedCandidates = "SELECT lock_key, holder FROM " + shared + " WHERE " + pastGrace
				+ " LIMIT ? FOR UPDATE SKIP LOCKED";
		this.purgeSharedRow = "DELETE FROM " + shared + " WHERE lock_key = ? AND holder = ? AND " + pastGrace;
		this.purgeLockIdCandidates = "SELECT i.lock_id, i.fence FROM " + ids + " i WHERE " + stale(table, shared, "i")
				+ " LIMIT ? FOR UPDATE SKIP LOCKED";
		// Checked again: on MariaDB the candidates' locking scan sees records committed after the start of its
		// statement, while its subquery reads the lock table as of that start, so a record written since then can
		// look stale there. A record is written only after its grant committed, so this later statement sees the grant.
		this.purgeLockIdRow = "DELETE FROM " + ids + " WHERE lock_id = ? AND fence = ? AND " + stale(table, shared, ids);
	}

	/**
	 * A status row's columns ({@link #INFO_COLUMNS} and the microseconds left as {@code remaining_us}), each read
	 * after {@code t}: on a key row the holder is the empty one (the key's own), which that table has no column for.
	 */
	private static String statusColumns(JdbcDialect dialect, String t, boolean keyRow) {
		StringBuilder columns = new StringBuilder();
		for (String column : INFO_COLUMNS.split(", ")) {
			columns.append(columns.isEmpty() ? "" : ", ")
				.append(keyRow && column.equals("holder") ? "'' AS holder" : t + column);
		}
		return columns.append(", ").append(dialect.microsUntil(t + "expires_at")).append(" AS remaining_us").toString();
	}

	/** The lock-ID record {@code records} is carried by no lock row, in either table. */
	private static String stale(String table, String shared, String records) {
		return "NOT EXISTS (SELECT 1 FROM " + table + " t WHERE " + carried(records, false) + ") AND NOT EXISTS ("
				+ "SELECT 1 FROM " + shared + " t WHERE " + carried(records, true) + ")";
	}

	/**
	 * The update (or delete) and a NOTIFY per key row it wrote while someone may wait for the key, in one statement on
	 * PostgreSQL: the {@code RETURNING} list is evaluated once per row written (never when it wrote none), on the row
	 * as written (as deleted), calling {@code pg_notify} only where the row's {@code waiter_until} is live or ended
	 * less than {@link JdbcAcquisition#NOTIFY_GRACE} ago, delivered when the statement commits. Every waiter on
	 * PostgreSQL marks waiter_until after each refusal (a writer's mark, a reader's mark) and waits no longer than that
	 * grace after it, so a release nobody waits for sends nothing: PostgreSQL serialises the commits of notifying
	 * transactions on one lock, which capped uncontended releases from many threads. While a waiting writer's mark is
	 * live the payload names it ({@code token U+001F key}, see {@link PostgresNotifications#NAMED}) and only that
	 * writer is woken; otherwise it is the key alone, which wakes every waiter of the key. A named notification goes
	 * to the named writer's listener alone when its mark carries a listener's tag ({@code tag.token}, see
	 * {@link PostgresListener#namedChannel}), else to the table's channel, as every other does; the tag is read only
	 * when it is {@link PostgresListener#TAG_LENGTH} single-byte characters, so the channel stays within PostgreSQL's
	 * 63 bytes whatever a mark holds. The second column is the named mark, or null. Null on MySQL/MariaDB, which have
	 * no notifications.
	 */
	private static @Nullable String notifying(JdbcDialect dialect, String update) {
		if (dialect != JdbcDialect.POSTGRESQL) {
			return null;
		}
		// RETURNING rather than a data-modifying CTE read by a SELECT: the same rows and calls, without the CTE's
		// tuplestore and scan on every release (issue 22).
		String named = liveWriterMark(dialect);
		int tag = PostgresListener.TAG_LENGTH;
		return update + " RETURNING CASE WHEN waiter_until > " + notifyUntil(dialect) + " THEN pg_notify(? || CASE WHEN "
				+ named + " AND "
				+ tagged("waiter") + " AND octet_length(left(waiter, " + tag + ")) = " + tag + " THEN '_' || left(waiter, "
				+ tag + ") ELSE '' END, CASE WHEN " + named + " THEN waiter || chr("
				+ (int) PostgresNotifications.NAMED + ") || lock_key ELSE lock_key END) END, CASE WHEN " + named
				+ " THEN waiter END";
	}

	/**
	 * On PostgreSQL, the fencing token drawn under the key's fencing lock, an advisory lock held until the statement
	 * commits; the key is the one argument. An insert draws its token before the server checks the key, so an insert
	 * that stalled after drawing it (descheduled, or waiting for another insert of the key to commit, after which it
	 * checks again) while another client inserted the row with a later token and deleted it would land with the
	 * earlier token. So every insert of a key row takes the key's fencing lock shared before it draws its token (in the
	 * condition of a {@code CASE}, evaluated before the branch that draws), and a deleting release deletes only when it
	 * gets the lock exclusive, without waiting ({@link #fencingLockFree}). A delete that finds an insert of the key in
	 * flight, from this JVM or another, deletes nothing and the row is released as a kept row is, so the insert writes
	 * nothing and the grant after it draws a later token under the row's lock; an insert that comes after a delete
	 * waits for it to commit, then draws. Inserts share the lock, the delete never waits for it, and a statement that
	 * holds a key's row either took its share before it touched the row or never asks for one, so no deadlock comes of
	 * it. The lock lives in the two-integer key space, which the {@code bigint} one of {@link TransactionScopedLocks}
	 * does not overlap: the table's name hashed, then the key's. Two keys whose hashes meet only keep a row now and then.
	 * <p>MySQL/MariaDB have no advisory lock that ends with the statement ({@code GET_LOCK} lasts until
	 * {@code RELEASE_LOCK} and is exclusive only), and the same lock as a row of a second table cost each side of the
	 * cycle a quarter or more of the server's work (docs/BENCHMARKS.md): there the race stays open between JVMs
	 * (docs/JDBC.md, "Fencing tokens").
	 */
	private static String fenced(String table, String next) {
		return "CASE WHEN pg_advisory_xact_lock_shared(" + advisoryKey(table, "?") + ") IS NOT NULL THEN " + next
				+ " END";
	}

	/**
	 * Whether the key row {@code row} can be granted to {@code token} exclusively: free, its lease ended or held by that
	 * very token (a replay), and no shared lease running.
	 */
	private static String grantable(String row, String token, String now) {
		String r = row + ".";
		return "((" + r + "token IS NULL OR " + r + "expires_at <= " + now + " OR " + r + "token = " + token + ") AND "
				+ r + "shared_until <= " + now + ")";
	}

	/** On PostgreSQL, the deleting release's condition: it holds the key's fencing lock exclusive, got at once. */
	private static String fencingLockFree(String table) {
		return "pg_try_advisory_xact_lock(" + advisoryKey(table, "lock_key") + ")";
	}

	/** The two integers of a key's fencing lock on PostgreSQL. */
	private static String advisoryKey(String table, String key) {
		return "hashtext('" + table + "'), hashtext(" + key + ")";
	}

	/** A waiter's mark that ended after this is recent enough for a release to notify (PostgreSQL). */
	private static String notifyUntil(JdbcDialect dialect) {
		return dialect.now() + " - INTERVAL '" + JdbcAcquisition.NOTIFY_GRACE.toSeconds() + " seconds'";
	}

	/**
	 * The lock row {@code t} still carries the grant of the lock-ID record {@code records} (its fencing token, owner
	 * token and ID): a lock released, taken over, cleared or granted again keeps no record that a lookup would follow.
	 */
	private static String carried(String records, boolean shared) {
		String r = records + ".";
		return "t.lock_key = " + r + "lock_key AND " + (shared ? "t.holder = " + r + "holder" : r + "holder = ''")
				+ " AND t.fence = " + r + "fence AND t.token = " + r + "token AND t.lock_id = " + r + "lock_id";
	}

	/** A mark in the column carries a listener's tag ({@link PostgresListener#mark}): the {@code .} after it. */
	private static String tagged(String column) {
		return "substr(" + column + ", " + (PostgresListener.TAG_LENGTH + 1) + ", 1) = '.'";
	}

	/** A key row's waiting writer's mark is live: a writer waits for the key, and releases name it. */
	private static String liveWriterMark(JdbcDialect dialect) {
		return "waiter IS NOT NULL AND waiter_until > " + dialect.now();
	}

	JdbcDialect dialect() {
		return dialect;
	}

}
