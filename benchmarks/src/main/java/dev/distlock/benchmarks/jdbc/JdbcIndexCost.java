package dev.distlock.benchmarks.jdbc;

import java.util.ArrayList;
import java.util.List;

import dev.distlock.benchmarks.jdbc.JdbcStatementCost.Args;
import dev.distlock.benchmarks.jdbc.JdbcStatementCost.Cycle;
import dev.distlock.benchmarks.jdbc.JdbcStatementCost.Kind;
import dev.distlock.jdbc.JdbcDialect;

/**
 * What a secondary index on the lock table costs the server, exact: the provider's uncontended plain-lock cycle (its
 * grant, which inserts the key row, and its deleting release) on the table as shipped (no index but the primary key;
 * lock IDs are found through the lock-ID table), on a copy with the {@code lock_id} index that earlier versions
 * carried and, on PostgreSQL, on a copy with a partial one ({@code WHERE lock_id IS NOT NULL}), with the floor's cycle
 * beside them, run by {@link JdbcStatementCost#alternate}: each on a connection of its own, in alternating chunks of
 * 50 cycles so that all see the same load; the figure is the server's CPU per cycle, relative to the table as shipped.
 * Run with {@code java -cp benchmarks.jar dev.distlock.benchmarks.jdbc.JdbcIndexCost};
 * {@code -Dcost.databases=postgres,mariadb}, {@code -Dcost.cycles=8000}, {@code -Dcost.rounds=3}.
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
				all.add(providerCycle(postgres, TABLE, "as shipped"));
				if (postgres) {
					String copy = "CREATE TABLE %s (LIKE " + TABLE + " INCLUDING DEFAULTS INCLUDING CONSTRAINTS)";
					database.execute(copy.formatted("locks_with_index"),
							"ALTER TABLE locks_with_index ADD PRIMARY KEY (lock_key, holder)",
							"CREATE INDEX locks_with_index_lock_id ON locks_with_index (lock_id)",
							copy.formatted("locks_partial_index"),
							"ALTER TABLE locks_partial_index ADD PRIMARY KEY (lock_key, holder)",
							"CREATE INDEX locks_partial_lock_id ON locks_partial_index (lock_id) WHERE lock_id IS NOT NULL");
					all.add(providerCycle(true, "locks_with_index", "with the lock_id index"));
					all.add(providerCycle(true, "locks_partial_index", "partial lock_id index"));
				}
				else {
					database.execute("CREATE TABLE locks_with_index LIKE " + TABLE,
							"ALTER TABLE locks_with_index ADD INDEX locks_with_index_lock_id (lock_id)");
					all.add(providerCycle(false, "locks_with_index", "with the lock_id index"));
				}
				all.add((postgres ? JdbcStatementVariants.postgres() : JdbcStatementVariants.mariadb()).get(0));
				System.out.println(database.description());
				JdbcStatementCost.alternate(database, all, cycles, rounds);
			}
		}
	}

	/** The provider's plain exclusive lock on the table: its grant (an insert of the key row) and deleting release. */
	private static Cycle providerCycle(boolean postgres, String table, String name) {
		JdbcDialect dialect = postgres ? JdbcDialect.POSTGRESQL : JdbcDialect.MARIADB;
		String grant = JdbcStatementVariants.current(dialect, postgres ? "acquireExclusive" : "insertExclusive")
			.replace("INTO " + TABLE + " ", "INTO " + table + " ");
		String release = JdbcStatementVariants.current(dialect, postgres ? "deleteExclusiveNotifying" : "deleteExclusive")
			.replace("FROM " + TABLE + " ", "FROM " + table + " ");
		long lease = JdbcStatementVariants.LEASE;
		Args grantArgs = (k, t) -> new Object[] { k, t, "bench-owner", "bench-host", null, lease, lease };
		Args releaseArgs = postgres ? (k, t) -> new Object[] { k, t, TABLE } : (k, t) -> new Object[] { k, t };
		return new Cycle(name, "", List.of(JdbcStatementVariants.step(grant, 0, postgres ? Kind.QUERY : Kind.KEYS, grantArgs),
				JdbcStatementVariants.step(release, 0, postgres ? Kind.QUERY : Kind.UPDATE, releaseArgs)));
	}

}
