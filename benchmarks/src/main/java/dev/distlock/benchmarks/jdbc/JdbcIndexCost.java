package dev.distlock.benchmarks.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.distlock.benchmarks.jdbc.JdbcStatementCost.Args;
import dev.distlock.benchmarks.jdbc.JdbcStatementCost.Cycle;
import dev.distlock.benchmarks.jdbc.JdbcStatementCost.Kind;
import dev.distlock.jdbc.JdbcDialect;

/**
 * What a secondary index on the lock table costs the server, exact: the provider's uncontended plain-lock cycle (its
 * grant, which inserts the key row, and its deleting release) on copies of the table as shipped (no index but the
 * primary key; lock IDs are found through the lock-ID table) and on copies with the {@code lock_id} index that earlier
 * versions carried, two of each in turn, then on PostgreSQL a copy with a partial one ({@code WHERE lock_id IS NOT
 * NULL}) and the floor's cycle, run by {@link JdbcStatementCost#alternate}: each on a connection of its own, in
 * alternating chunks of 50 cycles so that all see the same load; the figure is the server's CPU per cycle, relative to
 * the first copy. Copies only: the table the schema created measured 12-15% dearer than any copy of it on MariaDB in
 * one run whatever its indexes, and as dear as them in the next, so only copies made the same way compare; the two
 * copies of each kind show the spread between identical tables. Then the log the server writes per cycle, which no
 * load blurs, for the first copy of each kind and the floor. Run with
 * {@code java -cp benchmarks.jar dev.distlock.benchmarks.jdbc.JdbcIndexCost}; {@code -Dcost.databases=postgres,mariadb},
 * {@code -Dcost.cycles=8000}, {@code -Dcost.rounds=3}.
 */
public final class JdbcIndexCost {

	private static final String TABLE = JdbcStatementVariants.T;

	private JdbcIndexCost() {
	}

	public static void main(String[] args) throws Exception {
		int cycles = Integer.getInteger("cost.cycles", 8_000);
		int rounds = Integer.getInteger("cost.rounds", 3);
		for (String name : System.getProperty("cost.databases", "postgres,mariadb").split(",")) {
			boolean postgres = name.trim().equals("postgres");
			try (BenchmarkDatabase database = postgres ? BenchmarkDatabase.postgres() : BenchmarkDatabase.mariadb()) {
				new DistlockJdbcArm(database, 1).createSchema();
				new RawJdbcArm(database, 1).createSchema();
				List<Cycle> all = new ArrayList<>();
				for (int copy = 1; copy <= 2; copy++) {
					all.add(copy(database, postgres, "locks_shipped_" + copy, null, "as shipped (" + copy + ")"));
					all.add(copy(database, postgres, "locks_indexed_" + copy, "(lock_id)",
							"with the lock_id index (" + copy + ")"));
				}
				if (postgres) {
					all.add(copy(database, true, "locks_partial", "(lock_id) WHERE lock_id IS NOT NULL",
							"partial lock_id index"));
				}
				all.add((postgres ? JdbcStatementVariants.postgres() : JdbcStatementVariants.mariadb()).get(0));
				System.out.println(database.description());
				JdbcStatementCost.alternate(database, all, cycles, rounds);
				logBytes(database, postgres, List.of(all.get(0), all.get(1), all.get(all.size() - 1)), cycles, rounds);
			}
		}
	}

	/**
	 * What the timings cannot blur: the write-ahead log (PostgreSQL, {@code pg_current_wal_insert_lsn()}) or redo log
	 * (MariaDB, {@code Innodb_lsn_current}) written per cycle, each cycle on one connection in turn, nothing else
	 * running on the server.
	 */
	private static void logBytes(BenchmarkDatabase database, boolean postgres, List<Cycle> cycles, int count,
			int rounds) throws Exception {
		String lsn = postgres ? "SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn"
				: "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'INNODB_LSN_CURRENT'";
		try (Connection connection = DriverManager.getConnection(database.jdbcUrl(), database.user(), "")) {
			for (int round = 1; round <= rounds; round++) {
				StringBuilder line = new StringBuilder("log bytes per cycle, round " + round + ":");
				for (Cycle cycle : cycles) {
					long before = position(connection, lsn);
					for (int i = 0; i < count; i++) {
						JdbcStatementCost.runCycle(connection, cycle, "log:" + (i % 64), "t" + round + "x" + i);
					}
					line.append(String.format(Locale.ROOT, "  %s %.1f", cycle.name(),
							(position(connection, lsn) - before) / (double) count));
				}
				System.out.println(line);
			}
		}
	}

	private static long position(Connection connection, String sql) throws SQLException {
		try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(sql)) {
			rs.next();
			return rs.getLong(1);
		}
	}

	/** A copy of the lock table as shipped, with a {@code lock_id} index when {@code index} is not null. */
	private static Cycle copy(BenchmarkDatabase database, boolean postgres, String table, String index, String name) {
		if (postgres) {
			database.execute("CREATE TABLE " + table + " (LIKE " + TABLE + " INCLUDING DEFAULTS INCLUDING CONSTRAINTS)",
					"ALTER TABLE " + table + " ADD PRIMARY KEY (lock_key)");
			if (index != null) {
				database.execute("CREATE INDEX " + table + "_lock_id ON " + table + " " + index);
			}
		}
		else {
			database.execute("CREATE TABLE " + table + " LIKE " + TABLE);
			if (index != null) {
				database.execute("ALTER TABLE " + table + " ADD INDEX " + table + "_lock_id " + index);
			}
		}
		return providerCycle(postgres, table, name);
	}

	/** The provider's plain exclusive lock on the table: its grant (an insert of the key row) and deleting release. */
	private static Cycle providerCycle(boolean postgres, String table, String name) {
		JdbcDialect dialect = postgres ? JdbcDialect.POSTGRESQL : JdbcDialect.MARIADB;
		String grant = JdbcStatementVariants.current(dialect, "insertExclusive")
			.replace("INTO " + TABLE + " ", "INTO " + table + " ");
		String release = JdbcStatementVariants.current(dialect, "deleteExclusive")
			.replace("FROM " + TABLE + " ", "FROM " + table + " ");
		Args grantArgs = JdbcStatementVariants.rowArgs(grant);
		Args releaseArgs = (k, t) -> new Object[] { k, t };
		return new Cycle(name, "", List.of(JdbcStatementVariants.step(grant, 0, postgres ? Kind.QUERY : Kind.KEYS, grantArgs),
				JdbcStatementVariants.step(release, 0, Kind.UPDATE, releaseArgs)));
	}

}
