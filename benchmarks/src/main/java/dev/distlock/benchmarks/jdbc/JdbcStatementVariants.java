package dev.distlock.benchmarks.jdbc;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;

import dev.distlock.benchmarks.jdbc.JdbcStatementCost.Args;
import dev.distlock.benchmarks.jdbc.JdbcStatementCost.Cycle;
import dev.distlock.benchmarks.jdbc.JdbcStatementCost.Kind;
import dev.distlock.benchmarks.jdbc.JdbcStatementCost.Step;
import dev.distlock.jdbc.JdbcDialect;
import dev.distlock.jdbc.JdbcLockSettings;

/**
 * The cycles {@link JdbcStatementCost} compares: the floor's two statements, the provider's own (read from its
 * statement set, so they follow the code), and variants that each leave one thing out.
 */
final class JdbcStatementVariants {

	static final Object NULL_BIGINT = new Object();

	static final String T = JdbcLockSettings.DEFAULT_TABLE;

	static final String SEQ = T + "_fence";

	static final long LEASE = 10_000L;

	private JdbcStatementVariants() {
	}

	/** A statement of the provider's own statement set for the dialect, by field name. */
	static String current(JdbcDialect dialect, String field) {
		try {
			Class<?> type = Class.forName("dev.distlock.jdbc.LockStatements");
			Constructor<?> constructor = type.getDeclaredConstructor(JdbcDialect.class, String.class, String.class,
					String.class, String.class);
			constructor.setAccessible(true);
			Object statements = constructor.newInstance(dialect, T, SEQ, T + "_ids", T + "_shared");
			Field f = type.getDeclaredField(field);
			f.setAccessible(true);
			return (String) f.get(statements);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Whether an insert of the key row takes the key's fencing lock, and with it the key a second time, after the lock
	 * ID (PostgreSQL's since this round; MariaDB's, and an earlier commit's, do not).
	 */
	static boolean takesFencingLock(String sql) {
		return sql.contains("pg_advisory_xact_lock_shared(");
	}

	/**
	 * The arguments of an insert of the key row ({@code insertExclusive}, {@code acquireExclusive}): the key, token,
	 * owner, host, lock ID, the key again where it takes the key's fencing lock ({@link #takesFencingLock}), and the
	 * lease twice.
	 */
	static Args rowArgs(String sql) {
		boolean fenced = takesFencingLock(sql);
		return (k, t) -> fenced ? new Object[] { k, t, "bench-owner", "bench-host", null, k, LEASE, LEASE }
				: new Object[] { k, t, "bench-owner", "bench-host", null, LEASE, LEASE };
	}

	static Step step(String sql, int timeout, Kind kind, Args args) {
		return new Step(sql, timeout, kind, args);
	}

	static List<Cycle> postgres() {
		JdbcDialect d = JdbcDialect.POSTGRESQL;
		List<Cycle> cycles = new ArrayList<>();
		String floorAcquire = "INSERT INTO " + RawJdbcArm.TABLE + " (lock_key, token, expires_at) "
				+ "VALUES (?, ?, clock_timestamp() + INTERVAL '10 seconds') ON CONFLICT (lock_key) DO UPDATE "
				+ "SET token = EXCLUDED.token, expires_at = EXCLUDED.expires_at "
				+ "WHERE " + RawJdbcArm.TABLE + ".expires_at <= clock_timestamp() RETURNING token";
		String floorRelease = "DELETE FROM " + RawJdbcArm.TABLE + " WHERE lock_key = ? AND token = ?";
		Step fa = step(floorAcquire, 0, Kind.QUERY, (k, t) -> new Object[] { k, t });
		Step fr = step(floorRelease, 0, Kind.UPDATE, (k, t) -> new Object[] { k, t });
		cycles.add(new Cycle("floor", "", List.of(fa, fr)));
		String keepRowRelease = "UPDATE " + RawJdbcArm.TABLE + " SET token = '', expires_at = clock_timestamp() "
				+ "WHERE lock_key = ? AND token = ?";
		cycles.add(new Cycle("floor acquire + row-keeping UPDATE release", "",
				List.of(fa, step(keepRowRelease, 0, Kind.UPDATE, fr.args()))));
		Args acquireArgs = rowArgs(current(d, "acquireExclusive"));
		Step acquire = step(current(d, "acquireExclusive"), 0, Kind.QUERY, acquireArgs);
		Step releaseNotifying = step(current(d, "releaseExclusiveNotifying"), 0, Kind.QUERY,
				(k, t) -> new Object[] { t, k, t, T });
		Step release = step(current(d, "releaseExclusive"), 0, Kind.UPDATE, (k, t) -> new Object[] { t, k, t });
		cycles.add(new Cycle("current acquire + notifying release", "", List.of(acquire, releaseNotifying)));
		cycles.add(new Cycle("current acquire + deleting release", "", List.of(acquire,
				step(current(d, "deleteExclusive"), 0, Kind.UPDATE, (k, t) -> new Object[] { k, t }))));
		cycles.add(new Cycle("current acquire + plain release", "", List.of(acquire, release)));
		String plainUpdate = current(d, "releaseExclusive");
		String named = "waiter IS NOT NULL AND waiter_until > clock_timestamp()";
		String returningNotify = plainUpdate + " RETURNING CASE WHEN waiter_until > clock_timestamp() - INTERVAL '30 seconds' "
				+ "THEN pg_notify(?, CASE WHEN " + named + " THEN waiter || chr(31) || lock_key ELSE lock_key END) END, "
				+ "CASE WHEN " + named + " THEN waiter END";
		cycles.add(new Cycle("current acquire + release RETURNING pg_notify", "",
				List.of(acquire, step(returningNotify, 0, Kind.QUERY, (k, t) -> new Object[] { t, k, t, T }))));
		String cteNotify = "WITH written AS (" + plainUpdate + " RETURNING lock_key, waiter, waiter_until) SELECT CASE WHEN "
				+ "waiter_until > clock_timestamp() - INTERVAL '30 seconds' THEN pg_notify(?, CASE WHEN " + named
				+ " THEN waiter || chr(31) || lock_key ELSE lock_key END) END, CASE WHEN " + named + " THEN waiter END "
				+ "FROM written";
		cycles.add(new Cycle("current acquire + release CTE pg_notify (main)", "",
				List.of(acquire, step(cteNotify, 0, Kind.QUERY, (k, t) -> new Object[] { t, k, t, T }))));
		String now = "clock_timestamp()";
		String plus = "(clock_timestamp() + ? * INTERVAL '1 millisecond')";
		String noNextvalInValues = current(d, "acquireExclusive").replaceFirst("nextval\\('" + SEQ + "'\\)", "0");
		cycles.add(new Cycle("acquire without VALUES nextval + notifying release", "",
				List.of(step(noNextvalInValues, 0, Kind.QUERY, acquireArgs), releaseNotifying)));
		String minimal = "INSERT INTO " + T + " AS t (lock_key, token, fence, expires_at, shared_until) VALUES (?, ?, "
				+ "nextval('" + SEQ + "'), " + plus + ", TIMESTAMPTZ '1970-01-01 00:00:00+00') ON CONFLICT (lock_key) DO UPDATE "
				+ "SET fence = nextval('" + SEQ + "'), token = EXCLUDED.token, expires_at = EXCLUDED.expires_at "
				+ "WHERE t.token IS NULL OR t.expires_at <= " + now + " RETURNING t.fence";
		String minimalRelease = "UPDATE " + T + " SET token = NULL, expires_at = " + now
				+ " WHERE lock_key = ? AND token = ?";
		Step minimalAcquire = step(minimal, 0, Kind.QUERY, (k, t) -> new Object[] { k, t, LEASE });
		cycles.add(new Cycle("minimal acquire + notifying release", "", List.of(minimalAcquire, releaseNotifying)));
		cycles.add(new Cycle("minimal acquire + minimal release", "",
				List.of(minimalAcquire, step(minimalRelease, 0, Kind.UPDATE, (k, t) -> new Object[] { k, t }))));
		cycles.addAll(rowCost(fa.sql(), fr.sql(), acquireArgs));
		return cycles;
	}

	/**
	 * Tables for {@link #rowCost}, on PostgreSQL: the floor's row under the lock table's two-column key, the floor's
	 * row with the lock table's other columns (nullable, left empty).
	 */
	static final String[] ROW_COST_TABLES = {
			"CREATE TABLE IF NOT EXISTS floor_pair_key (lock_key VARCHAR(512), holder VARCHAR(64), "
					+ "token VARCHAR(64) NOT NULL, expires_at TIMESTAMPTZ(6) NOT NULL, PRIMARY KEY (lock_key, holder))",
			"CREATE TABLE IF NOT EXISTS floor_wide_row (lock_key VARCHAR(512) PRIMARY KEY, token VARCHAR(64) NOT NULL, "
					+ "expires_at TIMESTAMPTZ(6) NOT NULL, holder VARCHAR(64), owner_name VARCHAR(255), "
					+ "owner_host VARCHAR(255), lock_id VARCHAR(255), fence BIGINT, acquired_at TIMESTAMPTZ(6), "
					+ "renewed_at TIMESTAMPTZ(6), ttl_ms BIGINT, shared_until TIMESTAMPTZ(6), released VARCHAR(64), "
					+ "waiter VARCHAR(64), waiter_until TIMESTAMPTZ(6))" };

	/**
	 * What each part of the lock row costs the uncontended cycle on PostgreSQL, one part at a time, starting from both
	 * ends: the provider's own cycle (its plain insert and deleting release), the same without the fencing sequence,
	 * without the release's lease and mark filter, inserting only the floor's columns (and the fencing token and the
	 * shared lease end, which are not null), as a plain insert without {@code ON CONFLICT} (an error where the row is
	 * there), as an insert guarded by {@code NOT EXISTS}; and the floor's cycle on a two-column key, on a row as wide
	 * as the lock table's. Every step must write or return exactly one row. Compare each with the floor in alternating chunks: {@code -Dcost.pair='row: floor|row: ...'}.
	 */
	private static List<Cycle> rowCost(String floorAcquire, String floorRelease, Args insertArgs) {
		JdbcDialect d = JdbcDialect.POSTGRESQL;
		Args keyToken = (k, t) -> new Object[] { k, t };
		String insert = current(d, "insertExclusive");
		String delete = current(d, "deleteExclusive");
		String plainDelete = "DELETE FROM " + T + " WHERE lock_key = ? AND token = ?";
		List<Cycle> cycles = new ArrayList<>();
		cycles.add(new Cycle("row: floor", "", List.of(step(floorAcquire, 0, Kind.ONE_ROW, keyToken),
				step(floorRelease, 0, Kind.ONE_UPDATE, keyToken))));
		cycles.add(new Cycle("row: floor on a (lock_key, holder) key", "", List.of(
				step(floorAcquire.replace(RawJdbcArm.TABLE, "floor_pair_key")
					.replace("(lock_key, token, expires_at) VALUES (?, ?,",
							"(lock_key, holder, token, expires_at) VALUES (?, '', ?,")
					.replace("ON CONFLICT (lock_key)", "ON CONFLICT (lock_key, holder)"), 0, Kind.ONE_ROW, keyToken),
				step(floorRelease.replace(RawJdbcArm.TABLE, "floor_pair_key") + " AND holder = ''", 0, Kind.ONE_UPDATE,
						keyToken))));
		cycles.add(new Cycle("row: floor on a 15-column row", "", List.of(
				step(floorAcquire.replace(RawJdbcArm.TABLE, "floor_wide_row"), 0, Kind.ONE_ROW, keyToken),
				step(floorRelease.replace(RawJdbcArm.TABLE, "floor_wide_row"), 0, Kind.ONE_UPDATE, keyToken))));
		cycles.add(new Cycle("row: provider (insert + deleting release)", "", List.of(
				step(insert, 0, Kind.ONE_ROW, insertArgs), step(delete, 0, Kind.ONE_UPDATE, keyToken))));
		cycles.add(new Cycle("row: provider, release without lease and mark filter", "", List.of(
				step(insert, 0, Kind.ONE_ROW, insertArgs), step(plainDelete, 0, Kind.ONE_UPDATE, keyToken))));
		cycles.add(new Cycle("row: provider without the fencing sequence", "", List.of(
				step(insert.replace("nextval('" + SEQ + "')", "0"), 0, Kind.ONE_ROW, insertArgs),
				step(delete, 0, Kind.ONE_UPDATE, keyToken))));
		String floorColumns = "INSERT INTO " + T + " (lock_key, token, fence, expires_at, shared_until) "
				+ "VALUES (?, ?, nextval('" + SEQ + "'), (clock_timestamp() + ? * INTERVAL '1 millisecond'), "
				+ "TIMESTAMPTZ '1970-01-01 00:00:00+00') ON CONFLICT (lock_key) DO NOTHING RETURNING fence";
		cycles.add(new Cycle("row: provider, insert of the floor's columns only", "", List.of(
				step(floorColumns, 0, Kind.ONE_ROW, (k, t) -> new Object[] { k, t, LEASE }),
				step(delete, 0, Kind.ONE_UPDATE, keyToken))));
		cycles.add(new Cycle("row: provider, plain insert without ON CONFLICT", "", List.of(
				step(insert.replace(" ON CONFLICT (lock_key) DO NOTHING", ""), 0, Kind.ONE_ROW, insertArgs),
				step(delete, 0, Kind.ONE_UPDATE, keyToken))));
		String notExists = "INSERT INTO " + T + " (lock_key, token, owner_name, owner_host, lock_id, fence, "
				+ "acquired_at, expires_at, ttl_ms, shared_until) SELECT ?, ?, ?, ?, ?, nextval('" + SEQ + "'), "
				+ "clock_timestamp(), (clock_timestamp() + ? * INTERVAL '1 millisecond'), ?, "
				+ "TIMESTAMPTZ '1970-01-01 00:00:00+00' WHERE NOT EXISTS (SELECT 1 FROM " + T
				+ " WHERE lock_key = ?) RETURNING fence";
		cycles.add(new Cycle("row: provider, insert where not exists", "", List.of(
				step(notExists, 0, Kind.ONE_ROW, (k, t) -> new Object[] { k, t, "bench-owner", "bench-host", null, LEASE,
						LEASE, k }),
				step(delete, 0, Kind.ONE_UPDATE, keyToken))));
		// The key's fencing lock (LockStatements.fenced): its cost on each side.
		String tryLock = " AND pg_try_advisory_xact_lock(hashtext('" + T + "'), hashtext(lock_key))";
		String unlockedDelete = delete.replace(tryLock, "");
		String strict = insert.replace(" ON CONFLICT (lock_key) DO NOTHING", "");
		String fencedToken = "CASE WHEN pg_advisory_xact_lock_shared(hashtext('" + T + "'), hashtext(?)) IS NOT NULL "
				+ "THEN nextval('" + SEQ + "') END";
		String unlockedInsert = strict.replace(fencedToken, "nextval('" + SEQ + "')");
		if (unlockedInsert.equals(strict)) {
			throw new IllegalStateException("The insert no longer draws its token as " + fencedToken + ": " + strict);
		}
		cycles.add(new Cycle("row: fencing lock on neither side", "", List.of(
				step(unlockedInsert, 0, Kind.ONE_ROW, rowArgs(unlockedInsert)),
				step(unlockedDelete, 0, Kind.ONE_UPDATE, keyToken))));
		cycles.add(new Cycle("row: fencing lock in the insert only", "", List.of(
				step(strict, 0, Kind.ONE_ROW, rowArgs(strict)), step(unlockedDelete, 0, Kind.ONE_UPDATE, keyToken))));
		cycles.add(new Cycle("row: fencing lock in the delete only", "", List.of(
				step(unlockedInsert, 0, Kind.ONE_ROW, rowArgs(unlockedInsert)),
				step(delete, 0, Kind.ONE_UPDATE, keyToken))));
		return cycles;
	}

	static List<Cycle> mariadb() {
		JdbcDialect d = JdbcDialect.MARIADB;
		List<Cycle> cycles = new ArrayList<>();
		String floorAcquire = "INSERT INTO " + RawJdbcArm.TABLE + " (lock_key, token, expires_at) "
				+ "VALUES (?, ?, UTC_TIMESTAMP(6) + INTERVAL 10 SECOND) ON DUPLICATE KEY UPDATE "
				+ "token = IF(expires_at <= UTC_TIMESTAMP(6), VALUES(token), token), "
				+ "expires_at = IF(expires_at <= UTC_TIMESTAMP(6), VALUES(expires_at), expires_at)";
		String floorRelease = "DELETE FROM " + RawJdbcArm.TABLE + " WHERE lock_key = ? AND token = ?";
		Step fa = step(floorAcquire, 0, Kind.UPDATE, (k, t) -> new Object[] { k, t });
		Step fr = step(floorRelease, 0, Kind.UPDATE, (k, t) -> new Object[] { k, t });
		cycles.add(new Cycle("floor", "useAffectedRows=true", List.of(fa, fr)));
		String keepRowRelease = "UPDATE " + RawJdbcArm.TABLE + " SET token = '', expires_at = UTC_TIMESTAMP(6) "
				+ "WHERE lock_key = ? AND token = ?";
		cycles.add(new Cycle("floor acquire + row-keeping UPDATE release", "useAffectedRows=true",
				List.of(fa, step(keepRowRelease, 0, Kind.UPDATE, fr.args()))));
		cycles.add(new Cycle("floor, query timeout", "useAffectedRows=true",
				List.of(step(floorAcquire, 10, Kind.UPDATE, fa.args()), step(floorRelease, 10, Kind.UPDATE, fr.args()))));
		Args grantArgs = (k, t) -> new Object[] { t, t, "bench-owner", "bench-host", null, LEASE, LEASE, k, t };
		Args releaseArgs = (k, t) -> new Object[] { t, k, t };
		String grant = current(d, "grantExclusive");
		String release = current(d, "releaseExclusive");
		String now = "UTC_TIMESTAMP(6)";
		String plus = "(UTC_TIMESTAMP(6) + INTERVAL ? * 1000 MICROSECOND)";
		cycles.add(new Cycle("current grant + release, query timeout", "",
				List.of(step(grant, 10, Kind.KEYS, grantArgs), step(release, 10, Kind.UPDATE, releaseArgs))));
		Step insert = step(current(d, "insertExclusive"), 10, Kind.KEYS, rowArgs(current(d, "insertExclusive")));
		Step delete = step(current(d, "deleteExclusive"), 10, Kind.UPDATE, (k, t) -> new Object[] { k, t });
		cycles.add(new Cycle("current insert + deleting release, query timeout", "", List.of(insert, delete)));
		cycles.add(new Cycle("current insert + deleting release", "",
				List.of(step(insert.sql(), 0, Kind.KEYS, insert.args()), step(delete.sql(), 0, Kind.UPDATE, delete.args()))));
		cycles.add(new Cycle("current insert + deleting release, query timeout, server-prepared", "useServerPrepStmts=true",
				List.of(insert, delete)));
		cycles.add(new Cycle("current insert + deleting release, server-prepared", "useServerPrepStmts=true",
				List.of(step(insert.sql(), 0, Kind.KEYS, insert.args()), step(delete.sql(), 0, Kind.UPDATE, delete.args()))));
		cycles.add(new Cycle("current grant + release", "",
				List.of(step(grant, 0, Kind.KEYS, grantArgs), step(release, 0, Kind.UPDATE, releaseArgs))));
		String minimalGrant = "UPDATE " + T + " SET fence = LAST_INSERT_ID(NEXTVAL(" + SEQ + ")), token = ?, expires_at = "
				+ plus + " WHERE lock_key = ? AND (token IS NULL OR expires_at <= " + now
				+ ") AND shared_until <= " + now;
		String minimalRelease = "UPDATE " + T + " SET token = NULL, expires_at = " + now
				+ " WHERE lock_key = ? AND token = ?";
		Args minimalGrantArgs = (k, t) -> new Object[] { t, LEASE, k };
		Args minimalReleaseArgs = (k, t) -> new Object[] { k, t };
		cycles.add(new Cycle("minimal grant + minimal release", "",
				List.of(step(minimalGrant, 0, Kind.KEYS, minimalGrantArgs),
						step(minimalRelease, 0, Kind.UPDATE, minimalReleaseArgs))));
		cycles.add(new Cycle("current grant + minimal release", "",
				List.of(step(grant, 0, Kind.KEYS, grantArgs), step(minimalRelease, 0, Kind.UPDATE, minimalReleaseArgs))));
		cycles.add(new Cycle("minimal grant + current release", "",
				List.of(step(minimalGrant, 0, Kind.KEYS, minimalGrantArgs), step(release, 0, Kind.UPDATE, releaseArgs))));
		String noSequence = minimalGrant.replace("NEXTVAL(" + SEQ + ")", "fence + 1");
		cycles.add(new Cycle("minimal grant without sequence + minimal release", "",
				List.of(step(noSequence, 0, Kind.KEYS, minimalGrantArgs),
						step(minimalRelease, 0, Kind.UPDATE, minimalReleaseArgs))));
		String r = "@distlock_replay";
		String mainGrant = "UPDATE " + T + " SET fence = LAST_INSERT_ID(IF(" + r + " := token = ? AND expires_at > "
				+ now + ", fence, NEXTVAL(" + SEQ + "))), acquired_at = IF(" + r + ", acquired_at, " + now
				+ "), renewed_at = IF(" + r + ", renewed_at, NULL), waiter = IF(" + r
				+ ", waiter, NULL), waiter_until = IF(" + r + ", waiter_until, NULL), token = ?, "
				+ "owner_name = ?, owner_host = ?, lock_id = ?, expires_at = " + plus + ", ttl_ms = ?, "
				+ "released = NULL WHERE lock_key = ? AND (token IS NULL OR expires_at <= " + now
				+ " OR token = ?) AND shared_until <= " + now;
		String g = "@distlock_grant";
		String odku = "INSERT INTO " + T + " (lock_key, token, owner_name, owner_host, lock_id, fence, acquired_at, "
				+ "expires_at, ttl_ms, shared_until) VALUES (?, ?, ?, ?, ?, LAST_INSERT_ID(NEXTVAL(" + SEQ + ")), " + now
				+ ", " + plus + ", ?, TIMESTAMP'1970-01-01 00:00:00') ON DUPLICATE KEY UPDATE fence = IF(" + g
				+ " := (token IS NULL OR expires_at <= " + now + ") AND shared_until <= " + now + ", VALUES(fence), fence), "
				+ "acquired_at = IF(" + g + ", VALUES(acquired_at), acquired_at), renewed_at = IF(" + g + ", NULL, renewed_at), "
				+ "waiter = IF(" + g + ", NULL, waiter), token = IF(" + g + ", VALUES(token), token), owner_name = IF(" + g
				+ ", VALUES(owner_name), owner_name), owner_host = IF(" + g + ", VALUES(owner_host), owner_host), lock_id = IF("
				+ g + ", VALUES(lock_id), lock_id), expires_at = IF(" + g + ", VALUES(expires_at), expires_at), ttl_ms = IF("
				+ g + ", VALUES(ttl_ms), ttl_ms)";
		cycles.add(new Cycle("ODKU grant (no replay) + release, query timeout", "",
				List.of(step(odku, 10, Kind.KEYS, (k, t) -> new Object[] { k, t, "bench-owner", "bench-host", null, LEASE,
						LEASE }), step(release, 10, Kind.UPDATE, releaseArgs))));
		cycles.add(new Cycle("main grant + release, query timeout", "",
				List.of(step(mainGrant, 10, Kind.KEYS, grantArgs), step(release, 10, Kind.UPDATE, releaseArgs))));
		cycles.add(new Cycle("current grant + release, query timeout, server-prepared", "useServerPrepStmts=true",
				List.of(step(grant, 10, Kind.KEYS, grantArgs), step(release, 10, Kind.UPDATE, releaseArgs))));
		cycles.add(new Cycle("floor, server-prepared", "useAffectedRows=true&useServerPrepStmts=true", List.of(fa, fr)));
		cycles.add(new Cycle("current grant + release, server-prepared", "useServerPrepStmts=true",
				List.of(step(grant, 0, Kind.KEYS, grantArgs), step(release, 0, Kind.UPDATE, releaseArgs))));
		return cycles;
	}

}
