package dev.distlock.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.distlock.core.LockStoreException;
import dev.distlock.jdbc.LockDatabase.RowReader;

/**
 * The schema and the purge. The DDL is the dialect's resource in the jar with the configured names filled in. The
 * purger deletes rows whose every lease ended more than the grace ago by the database clock, then the lock-ID records
 * whose lock no longer carries them, in bounded batches, one short transaction each that picks its rows with
 * {@code FOR UPDATE SKIP LOCKED}, so it never waits for a row an acquire is writing and never deletes a range.
 */
final class JdbcMaintenance {

	private static final Log logger = LogFactory.getLog(JdbcMaintenance.class);

	private static final long MAINTENANCE_MS = TimeLimits.MAINTENANCE.toMillis();

	private final LockDatabase database;

	private final LockStatements sql;

	private final JdbcLockSettings settings;

	private final Duration purgeGrace;

	JdbcMaintenance(LockDatabase database, LockStatements sql, JdbcLockSettings settings, Duration purgeGrace) {
		this.database = database;
		this.sql = sql;
		this.settings = settings;
		this.purgeGrace = purgeGrace;
	}

	/** The dialect's DDL with the configured table and sequence names, one statement per element. */
	static List<String> schema(JdbcDialect dialect, JdbcLockSettings settings) {
		return statements(dialect.schemaResource(), settings);
	}

	/** The statements of a resource with the configured table and sequence names, one statement per element. */
	private static List<String> statements(String resource, JdbcLockSettings settings) {
		String text;
		try (InputStream in = JdbcMaintenance.class.getClassLoader().getResourceAsStream(resource)) {
			if (in == null) {
				throw new IllegalStateException("Missing resource " + resource);
			}
			text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		StringBuilder body = new StringBuilder();
		for (String line : text.split("\n")) {
			if (!line.startsWith("--")) {
				body.append(line).append('\n');
			}
		}
		List<String> statements = new ArrayList<>();
		for (String statement : body.toString().split(";")) {
			if (!statement.isBlank()) {
				statements.add(statement.strip().replace("${table}", settings.table())
					.replace("${sequence}", settings.sequence()));
			}
		}
		return statements;
	}

	/**
	 * Creates the tables and the sequence if they do not exist, then splits a lock table an earlier version created
	 * with the shared holders' rows in it ({@link #upgrade}).
	 */
	void createSchema() {
		String operation = "create the lock table '" + settings.table() + "'";
		for (String statement : schema(database.dialect(), settings)) {
			try {
				database.run(null, operation, MAINTENANCE_MS, false, session -> session.update(statement));
			}
			catch (LockStoreException ex) {
				// A CREATE … IF NOT EXISTS that raced another instance creating the same table or sequence fails on
				// PostgreSQL (a unique violation in its catalog) and succeeds when run again, finding it there.
				if (statement.startsWith("CREATE")) {
					database.run(null, operation, MAINTENANCE_MS, false, session -> session.update(statement));
					continue;
				}
				// An ALTER TABLE is a storage setting for tables an earlier version created: it needs the table's
				// owner, and the tables work without it, so a refusal leaves them as they are.
				if (!statement.startsWith("ALTER TABLE")) {
					throw ex;
				}
				logger.warn("Could not run '" + statement + "' (" + ex.getMessage() + "); the table works without it, "
						+ "but see docs/JDBC.md, \"The planner and a churning table\"");
			}
		}
		upgrade();
	}

	/**
	 * Moves the shared holders' rows of a lock table an earlier version created (one with a {@code holder} column) to
	 * the shared holders' table and keys the lock table by the key alone, with every other statement on the tables
	 * kept out meanwhile: on PostgreSQL in one transaction that first locks the lock table (its DDL is
	 * transactional), on MariaDB under {@code LOCK TABLES … WRITE} (its DDL commits by itself), released whatever
	 * happens. It also records the grants under a lock ID that versions without the lock-ID table made. Nothing when
	 * the table has the current layout; an instance that finds another one upgraded the table first, and so fails,
	 * finds the column gone and carries on.
	 */
	void upgrade() {
		if (!needsUpgrade()) {
			return;
		}
		logger.warn("Upgrading the lock table '" + settings.table() + "' of an earlier version: its shared holders "
				+ "move to '" + settings.sharedTable() + "'; instances of the earlier version fail their lock calls "
				+ "from now on (docs/JDBC.md, \"Upgrading\")");
		List<String> statements = statements(database.dialect().upgradeResource(), settings);
		boolean postgres = database.dialect() == JdbcDialect.POSTGRESQL;
		String lockTables = "LOCK TABLES " + settings.table() + " WRITE, " + settings.sharedTable() + " WRITE, "
				+ settings.lockIdTable() + " WRITE";
		try {
			database.run(null, "upgrade the lock table '" + settings.table() + "'", MAINTENANCE_MS, postgres,
					session -> {
						if (!postgres) {
							session.update(lockTables);
						}
						try {
							for (String statement : statements) {
								session.update(statement);
							}
						}
						finally {
							if (!postgres) {
								session.update("UNLOCK TABLES");
							}
						}
						return statements.size();
					});
		}
		catch (LockStoreException ex) {
			if (needsUpgrade()) {
				throw ex;
			}
			logger.info("The lock table '" + settings.table() + "' was upgraded meanwhile by another instance");
		}
	}

	/**
	 * Whether the lock table has the layout of a version before 2026-11-30, with the shared holders' rows in it: it
	 * has a {@code holder} column. Read by a query that names the column, so the table is found exactly as the lock
	 * statements find it (the connection's schema search path, the name's letter case).
	 */
	boolean needsUpgrade() {
		try (Connection connection = database.dataSource().getConnection();
				java.sql.Statement probe = connection.createStatement()) {
			probe.executeQuery("SELECT holder FROM " + settings.table() + " WHERE 1 = 0").close();
			return true;
		}
		catch (SQLException ex) {
			// No such column: PostgreSQL's undefined_column, MySQL/MariaDB's ER_BAD_FIELD_ERROR.
			if ("42703".equals(ex.getSQLState()) || "42S22".equals(ex.getSQLState()) || ex.getErrorCode() == 1054) {
				return false;
			}
			throw new LockStoreException(null,
					"JDBC lock store could not read the layout of '" + settings.table() + "': " + ex.getMessage(), ex);
		}
	}

	/**
	 * The provider's tables (the lock table, the shared holders' table, the lock-ID table) that do not exist, as the
	 * database's metadata says (either letter case).
	 */
	List<String> missingTables() {
		try (Connection connection = database.dataSource().getConnection()) {
			DatabaseMetaData meta = connection.getMetaData();
			List<String> missing = new ArrayList<>();
			for (String table : List.of(settings.table(), settings.sharedTable(), settings.lockIdTable())) {
				if (!exists(connection, meta, table)) {
					missing.add(table);
				}
			}
			return missing;
		}
		catch (SQLException ex) {
			throw new LockStoreException(null,
					"JDBC lock store could not check for the table '" + settings.table() + "': " + ex.getMessage(), ex);
		}
	}

	private static boolean exists(Connection connection, DatabaseMetaData meta, String table) throws SQLException {
		for (String name : List.of(table, table.toLowerCase(Locale.ROOT), table.toUpperCase(Locale.ROOT))) {
			try (ResultSet rs = meta.getTables(connection.getCatalog(), null, name, new String[] { "TABLE" })) {
				if (rs.next()) {
					return true;
				}
			}
		}
		return false;
	}

	/**
	 * Deletes rows past the grace, then the lock-ID records whose lock no longer carries them.
	 * @return how many lock rows were deleted
	 */
	long purge() {
		long grace = purgeGrace.toMillis();
		long total = inBatches("purge", sql.purgeCandidates, new Object[] { grace, grace, settings.purgeBatch() },
				rs -> new Object[] { rs.getString(1), grace }, sql.purgeRow);
		total += inBatches("purge shared holders", sql.purgeSharedCandidates,
				new Object[] { grace, settings.purgeBatch() }, rs -> new Object[] { rs.getString(1), rs.getString(2), grace },
				sql.purgeSharedRow);
		if (total > 0) {
			logger.debug("Purged " + total + " expired lock rows from '" + settings.table() + "'");
		}
		long records = inBatches("purge lock IDs", sql.purgeLockIdCandidates, new Object[] { settings.purgeBatch() },
				rs -> new Object[] { rs.getString(1), rs.getLong(2) }, sql.purgeLockIdRow);
		if (records > 0) {
			logger.debug("Purged " + records + " stale lock-ID records from '" + settings.lockIdTable() + "'");
		}
		return total;
	}

	/**
	 * Batch by batch, each one short transaction: picks the candidates (each read as the arguments of its delete) and
	 * deletes them one by one, until a batch finds fewer than a full batch.
	 * @return how many rows were deleted
	 */
	private long inBatches(String what, String candidates, Object[] candidateArgs, RowReader<Object[]> deleteArgs,
			String delete) {
		long total = 0;
		int[] batch;
		do {
			batch = database.run(null, what, MAINTENANCE_MS, true, session -> {
				List<Object[]> rows = session.query(candidates, deleteArgs, candidateArgs);
				int deleted = 0;
				for (Object[] args : rows) {
					deleted += session.update(delete, args);
				}
				return new int[] { deleted, rows.size() };
			});
			total += batch[0];
		}
		while (batch[1] >= settings.purgeBatch());
		return total;
	}

	/** One scheduled purge: a failure is logged, and the next run tries again. */
	void purgeLogged() {
		try {
			purge();
		}
		catch (RuntimeException ex) {
			logger.warn("Purging expired locks from '" + settings.table() + "' failed; trying again in "
					+ settings.purgeInterval(), ex);
		}
	}

}
