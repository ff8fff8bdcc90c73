package dev.distlock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.distlock.benchmarks.harness.LockArm;
import dev.distlock.benchmarks.jdbc.BenchmarkDatabase;
import dev.distlock.benchmarks.jdbc.DistlockJdbcArm;
import dev.distlock.benchmarks.jdbc.DistlockJdbcProviderArm;
import dev.distlock.benchmarks.jdbc.IntegrationJdbcArm;
import dev.distlock.benchmarks.jdbc.JdbcArm;
import dev.distlock.benchmarks.jdbc.RawJdbcArm;
import dev.distlock.benchmarks.jdbc.ShedLockJdbcArm;
import dev.distlock.jdbc.JdbcDialect;

/**
 * The JDBC arms on one PostgreSQL and one MariaDB server of the suite's own: uncontended figures, 8 and 32 clients on
 * one key, and the connections each arm uses. Every client of every arm has its own Hikari pool of the same size
 * ({@code -Dbench.jdbcPool}, 8 by default), opened on demand.
 */
final class JdbcSuite {

	/** The pool size of every client of every arm. */
	static final int POOL_SIZE = Integer.getInteger("bench.jdbcPool", 8);

	private JdbcSuite() {
	}

	/**
	 * What the suite measured on one database.
	 * @param database the server's product and version, or what kept it from starting
	 * @param failure why the suite did not run on it, or null
	 * @param floor the raw single-statement arm
	 * @param distlock distlock through LockTemplate (default retry delay)
	 * @param shedLock ShedLock's provider
	 * @param integration Spring Integration's registry
	 * @param all every arm, floor first
	 */
	record Results(String database, @Nullable String failure, @Nullable ArmResult floor, @Nullable ArmResult distlock,
			@Nullable ArmResult shedLock, @Nullable ArmResult integration, List<ArmResult> all) {

		boolean postgres() {
			return database.startsWith("PostgreSQL");
		}

	}

	/** The databases the suite runs on ({@code -Dbench.jdbcDatabases}, both by default). */
	static final List<String> DATABASES = List.of(System.getProperty("bench.jdbcDatabases", "postgresql,mariadb")
		.toLowerCase(Locale.ROOT).split(","));

	static List<Results> run(Settings settings) {
		for (String database : DATABASES) {
			if (!database.equals("postgresql") && !database.equals("mariadb")) {
				throw new IllegalArgumentException("-Dbench.jdbcDatabases takes postgresql and/or mariadb, "
						+ "comma-separated; was '" + System.getProperty("bench.jdbcDatabases") + "'");
			}
		}
		List<Results> results = new ArrayList<>();
		if (DATABASES.contains("postgresql")) {
			results.add(run("PostgreSQL", BenchmarkDatabase::postgres, settings));
		}
		if (DATABASES.contains("mariadb")) {
			results.add(run("MariaDB", BenchmarkDatabase::mariadb, settings));
		}
		return results;
	}

	private static Results run(String product, Supplier<BenchmarkDatabase> server, Settings settings) {
		Progress.say("JDBC arms on " + product);
		BenchmarkDatabase database;
		try {
			database = server.get();
		}
		catch (RuntimeException ex) {
			Progress.say("  " + product + " did not start: " + ex.getMessage());
			return new Results(product, "the server did not start: " + ex.getMessage(), null, null, null, null,
					List.of());
		}
		try (database) {
			String options = database.extraUrlOptions();
			String description = database.description()
					+ (options.isEmpty() ? "" : " (every arm's driver with " + options + ")");
			Progress.say("  " + description + ", pool of " + POOL_SIZE + " per client");
			List<JdbcArm> arms = new ArrayList<>(List.of(new RawJdbcArm(database, POOL_SIZE),
					new DistlockJdbcArm(database, POOL_SIZE), new DistlockJdbcProviderArm(database, POOL_SIZE)));
			if (database.dialect() == JdbcDialect.MARIADB) {
				// No notifications on MariaDB: waiters from other clients wake at the retry delay; this arm polls at
				// the floor's and ShedLock's 1 ms.
				arms.add(new DistlockJdbcArm(database, POOL_SIZE, Duration.ofMillis(1)));
			}
			if (settings.peers()) {
				arms.addAll(List.of(new ShedLockJdbcArm(database, POOL_SIZE), new IntegrationJdbcArm(database, POOL_SIZE)));
			}
			arms.forEach(JdbcArm::createSchema);
			String[] empty = arms.stream().map(JdbcArm::table).distinct().map(table -> "DELETE FROM " + table)
				.toArray(String[]::new);
			Settings jdbc = new Settings(settings.window(), settings.warmup(), settings.contentionWarmup(),
					List.of(8, 32), settings.heldLocks(), settings.commandCycles(), settings.suites(),
					settings.peers());
			List<ArmResult> all = new SuiteRunner(jdbc, null, () -> -1, () -> database.execute(empty))
				.database(database)
				.run(new ArrayList<LockArm>(arms));
			return new Results(description, null, all.get(0), all.get(1), find(all, ShedLockJdbcArm.class, arms),
					find(all, IntegrationJdbcArm.class, arms), all);
		}
	}

	private static @Nullable ArmResult find(List<ArmResult> all, Class<?> type, List<JdbcArm> arms) {
		for (int i = 0; i < arms.size(); i++) {
			if (type.isInstance(arms.get(i))) {
				return all.get(i);
			}
		}
		return null;
	}

}
