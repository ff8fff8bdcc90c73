package dev.distlock.benchmarks.jdbc;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.distlock.jdbc.JdbcDialect;

/**
 * Server CPU of single lock statements, exact: one connection runs a cycle of statements (an acquire and a release on
 * its own key) many times, and the server's CPU over those cycles is read from {@code /proc/.../schedstat}
 * (nanoseconds): the connection's own backend (PostgreSQL) or thread (MariaDB), and the whole server (background
 * writers and purge included). Cycles that differ in one statement, run interleaved, show what that statement costs.
 * Each cycle also prints the server's own per-statement figures ({@code pg_stat_statements} mean execution time and
 * whether the plan is generic; MariaDB's {@code performance_schema} digests, wall time, and server-side prepares).
 * Run with {@code java -cp benchmarks.jar dev.distlock.benchmarks.jdbc.JdbcStatementCost};
 * {@code -Dcost.databases=postgres,mariadb}, {@code -Dcost.cycles=4000}, {@code -Dcost.rounds=3},
 * {@code -Dcost.only=<comma-separated substrings of cycle names>}; {@code -Dcost.pair='<cycle A>|<cycle B>'} runs
 * two cycles in alternating chunks on two connections instead ({@link #alternate}), the fairest comparison on a
 * loaded machine.
 */
public final class JdbcStatementCost {

	private JdbcStatementCost() {
	}

	/** One statement of a cycle: its text, whether it carries a query timeout, and how it is run. */
	record Step(String sql, int timeoutSeconds, Kind kind, Args args) {
	}

	/**
	 * How a step is run: an update, a query, an update with generated keys; {@code ONE_ROW} and {@code ONE_UPDATE} are a
	 * query and an update that must return, or write, exactly one row, or the cycle fails (a cycle that measures
	 * statements that find nothing would measure nothing).
	 */
	enum Kind {
		UPDATE, QUERY, KEYS, ONE_ROW, ONE_UPDATE
	}

	@FunctionalInterface
	interface Args {

		Object[] of(String key, String token);

	}

	record Cycle(String name, String urlOptions, List<Step> steps) {
	}

	public static void main(String[] args) throws Exception {
		int cycles = Integer.getInteger("cost.cycles", 4_000);
		int rounds = Integer.getInteger("cost.rounds", 3);
		String only = System.getProperty("cost.only", "");
		for (String name : System.getProperty("cost.databases", "postgres,mariadb").split(",")) {
			boolean postgres = name.trim().equals("postgres");
			try (BenchmarkDatabase database = postgres ? BenchmarkDatabase.postgres() : BenchmarkDatabase.mariadb()) {
				new RawJdbcArm(database, 1).createSchema();
				new DistlockJdbcArm(database, 1).createSchema();
				if (postgres) {
					database.execute(JdbcStatementVariants.ROW_COST_TABLES);
				}
				System.out.println(database.description());
				List<Cycle> all = postgres ? JdbcStatementVariants.postgres() : JdbcStatementVariants.mariadb();
				List<Cycle> chosen = all.stream().filter(c -> only.isEmpty() || matches(c.name(), only)).toList();
				String pair = System.getProperty("cost.pair", "");
				if (!pair.isEmpty()) {
					String[] names = pair.split("\\|");
					Cycle a = all.stream().filter(c -> c.name().equals(names[0])).findFirst().orElseThrow();
					Cycle b = all.stream().filter(c -> c.name().equals(names[1])).findFirst().orElseThrow();
					alternate(database, List.of(a, b), cycles, rounds);
					continue;
				}
				Map<String, List<double[]>> results = new LinkedHashMap<>();
				for (int round = 1; round <= rounds; round++) {
					for (Cycle cycle : chosen) {
						double[] cost = run(database, cycle, cycles, "r" + round);
						results.computeIfAbsent(cycle.name(), k -> new ArrayList<>()).add(cost);
						System.out.printf(Locale.ROOT, "  round %d %-60s backend %7.1f us  server %7.1f us%n", round,
								cycle.name(), cost[0] / 1000, cost[1] / 1000);
					}
				}
				System.out.printf("%-60s %s%n", "cycle (" + database.dialect() + ")",
						"backend us/cycle per round | server us/cycle per round");
				results.forEach((cycle, costs) -> {
					StringBuilder line = new StringBuilder(String.format("%-60s", cycle));
					costs.forEach(c -> line.append(String.format(Locale.ROOT, " %6.1f", c[0] / 1000)));
					line.append(" |");
					costs.forEach(c -> line.append(String.format(Locale.ROOT, " %6.1f", c[1] / 1000)));
					double[] sorted = costs.stream().mapToDouble(c -> c[1] / 1000).sorted().toArray();
					line.append(String.format(Locale.ROOT, " | median %6.1f min %6.1f", sorted[sorted.length / 2],
							sorted[0]));
					System.out.println(line);
				});
			}
		}
	}

	/**
	 * Cycles on a connection each, run in alternating chunks of 50 cycles so that all see the same load: the backend
	 * CPU per cycle of each, summed over all chunks of a round, and its ratio to the first cycle's.
	 */
	static void alternate(BenchmarkDatabase database, List<Cycle> cycles, int count, int rounds) throws Exception {
		boolean postgres = database.dialect() == JdbcDialect.POSTGRESQL;
		int n = cycles.size();
		List<Connection> connections = new ArrayList<>();
		try {
			long[][] backends = new long[n][];
			String key = "alternate:" + System.nanoTime() + ":";
			for (int c = 0; c < n; c++) {
				Connection connection = open(database, cycles.get(c));
				connections.add(connection);
				backends[c] = ids(connection, postgres);
				if (!postgres && !insertsTheKeyRow(cycles.get(c))) {
					try (PreparedStatement insert = connection.prepareStatement(JdbcStatementVariants
						.current(JdbcDialect.MARIADB, "insertFreeKeyRow"))) {
						insert.setString(1, key + c);
						insert.executeUpdate();
					}
				}
			}
			String token = "t" + Long.toHexString(System.nanoTime()) + "0123456789abcdef0123";
			for (int i = 0; i < count / 4; i++) {
				for (int c = 0; c < n; c++) {
					runCycle(connections.get(c), cycles.get(c), key + c, token + (i % 2));
				}
			}
			for (int round = 1; round <= rounds; round++) {
				long[] sums = new long[n];
				for (int chunk = 0; chunk < count / 50; chunk++) {
					for (int c = 0; c < n; c++) {
						long before = threadCpu(backends[c][0], backends[c][1]);
						for (int i = 0; i < 50; i++) {
							runCycle(connections.get(c), cycles.get(c), key + c, token + (i % 2));
						}
						sums[c] += threadCpu(backends[c][0], backends[c][1]) - before;
					}
				}
				StringBuilder line = new StringBuilder("round " + round + ":");
				for (int c = 0; c < n; c++) {
					line.append(String.format(Locale.ROOT, "  %s %.1f us (%.3fx)", cycles.get(c).name(),
							sums[c] / 1000.0 / (count / 50 * 50), sums[c] / (double) sums[0]));
				}
				System.out.println(line);
			}
		}
		finally {
			for (Connection connection : connections) {
				connection.close();
			}
		}
	}

	private static Connection open(BenchmarkDatabase database, Cycle cycle) throws SQLException {
		String url = database.jdbcUrl();
		if (!cycle.urlOptions().isEmpty()) {
			url += (url.contains("?") ? "&" : "?") + cycle.urlOptions();
		}
		return DriverManager.getConnection(url, database.user(), "");
	}

	/**
	 * Whether the cycle's acquire inserts the key's row (and its release deletes it), as the provider's plain exclusive
	 * lock does: such a cycle starts with no row, since a free row left in place would make every insert write nothing.
	 * The other MariaDB cycles grant by updating a free row, which is inserted first.
	 */
	private static boolean insertsTheKeyRow(Cycle cycle) {
		return cycle.steps().get(0).sql().startsWith("INSERT");
	}

	private static boolean matches(String name, String only) {
		for (String part : only.split(",")) {
			if (name.contains(part)) {
				return true;
			}
		}
		return false;
	}

	/** Backend and whole-server CPU ns per cycle. */
	private static double[] run(BenchmarkDatabase database, Cycle cycle, int cycles, String round) throws Exception {
		boolean postgres = database.dialect() == JdbcDialect.POSTGRESQL;
		String url = database.jdbcUrl();
		if (!cycle.urlOptions().isEmpty()) {
			url += (url.contains("?") ? "&" : "?") + cycle.urlOptions();
		}
		try (Connection connection = DriverManager.getConnection(url, database.user(), "")) {
			long[] self = ids(connection, postgres);
			String key = "stmt:" + round + ":" + cycle.name().hashCode();
			String token = "t" + Long.toHexString(System.nanoTime()) + "0123456789abcdef0123";
			if (!postgres && !insertsTheKeyRow(cycle)) {
				// The key's row, free, as the provider's first grant of the key leaves it after its release.
				try (PreparedStatement insert = connection.prepareStatement(JdbcStatementVariants
					.current(JdbcDialect.MARIADB, "insertFreeKeyRow"))) {
					insert.setString(1, key);
					insert.executeUpdate();
				}
			}
			int warmup = cycles / 4;
			for (int i = 0; i < warmup; i++) {
				runCycle(connection, cycle, key, token + (i % 2));
			}
			long fenceBefore = fence(connection, key);
			long prepares = postgres ? 0 : status(connection, "Com_stmt_prepare");
			database.resetStatementTimes();
			long backend = threadCpu(self[0], self[1]);
			long server = serverCpu(self[0], self[1], postgres);
			for (int i = 0; i < cycles; i++) {
				runCycle(connection, cycle, key, token + (i % 2));
			}
			double[] cost = { (threadCpu(self[0], self[1]) - backend) / (double) cycles,
					(serverCpu(self[0], self[1], postgres) - server) / (double) cycles };
			long fences = fence(connection, key) - fenceBefore;
			database.statementTimes(cycles).forEach((sql, t) -> System.out.printf(Locale.ROOT,
					"      %5.2f/cycle %7.1f us  %s%n", t[0], t[1], sql));
			if (postgres) {
				try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(
						"SELECT generic_plans, custom_plans, left(regexp_replace(statement, '\\s+', ' ', 'g'), 60) "
								+ "FROM pg_prepared_statements")) {
					while (rs.next()) {
						System.out.println("      plans generic " + rs.getLong(1) + " custom " + rs.getLong(2) + "  "
								+ rs.getString(3));
					}
				}
			}
			else {
				System.out.println("      server prepares: " + (status(connection, "Com_stmt_prepare") - prepares));
			}
			if (!cycle.name().startsWith("floor") && !cycle.name().startsWith("row:") && fences < cycles) {
				System.out.println("  (" + cycle.name() + ": only " + fences + " fencing tokens for " + cycles + " cycles)");
			}
			return cost;
		}
	}

	static void runCycle(Connection connection, Cycle cycle, String key, String token) throws SQLException {
		for (Step step : cycle.steps()) {
			try (PreparedStatement statement = step.kind() == Kind.KEYS
					? connection.prepareStatement(step.sql(), Statement.RETURN_GENERATED_KEYS)
					: connection.prepareStatement(step.sql())) {
				if (step.timeoutSeconds() > 0) {
					statement.setQueryTimeout(step.timeoutSeconds());
				}
				Object[] values = step.args().of(key, token);
				for (int i = 0; i < values.length; i++) {
					if (values[i] instanceof String text) {
						statement.setString(i + 1, text);
					}
					else if (values[i] == null) {
						statement.setNull(i + 1, java.sql.Types.VARCHAR);
					}
					else if (values[i] == JdbcStatementVariants.NULL_BIGINT) {
						statement.setNull(i + 1, java.sql.Types.BIGINT);
					}
					else {
						statement.setObject(i + 1, values[i]);
					}
				}
				switch (step.kind()) {
					case UPDATE -> statement.executeUpdate();
					case ONE_UPDATE -> {
						if (statement.executeUpdate() != 1) {
							throw new IllegalStateException("Wrote no row, or more than one: " + step.sql());
						}
					}
					case ONE_ROW -> {
						try (ResultSet rs = statement.executeQuery()) {
							if (!rs.next() || rs.next()) {
								throw new IllegalStateException("Returned no row, or more than one: " + step.sql());
							}
						}
					}
					case QUERY -> {
						try (ResultSet rs = statement.executeQuery()) {
							while (rs.next()) {
								rs.getObject(1);
							}
						}
					}
					case KEYS -> {
						if (statement.executeUpdate() > 0) {
							try (ResultSet keys = statement.getGeneratedKeys()) {
								keys.next();
							}
						}
					}
				}
			}
		}
	}

	private static long status(Connection connection, String name) throws SQLException {
		try (Statement statement = connection.createStatement();
				ResultSet rs = statement.executeQuery("SHOW SESSION STATUS LIKE '" + name + "'")) {
			rs.next();
			return rs.getLong(2);
		}
	}

	private static long fence(Connection connection, String key) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement("SELECT fence FROM "
				+ JdbcStatementVariants.T + " WHERE lock_key = ?")) {
			statement.setString(1, key);
			try (ResultSet rs = statement.executeQuery()) {
				return rs.next() ? rs.getLong(1) : 0;
			}
		}
	}

	/** {process id, thread id} of the connection's server side. */
	private static long[] ids(Connection connection, boolean postgres) throws Exception {
		try (Statement statement = connection.createStatement()) {
			if (postgres) {
				try (ResultSet rs = statement.executeQuery("SELECT pg_backend_pid()")) {
					rs.next();
					long pid = rs.getLong(1);
					return new long[] { pid, pid };
				}
			}
			try (ResultSet rs = statement.executeQuery(
					"SELECT THREAD_OS_ID FROM performance_schema.threads WHERE PROCESSLIST_ID = CONNECTION_ID()")) {
				rs.next();
				long tid = rs.getLong(1);
				long pid = -1;
				for (String line : Files.readAllLines(Paths.get("/proc", String.valueOf(tid), "status"))) {
					if (line.startsWith("Tgid:")) {
						pid = Long.parseLong(line.substring(5).trim());
					}
				}
				return new long[] { pid, tid };
			}
		}
	}

	private static long threadCpu(long pid, long tid) throws IOException {
		return schedstat(Paths.get("/proc", String.valueOf(pid), "task", String.valueOf(tid), "schedstat"));
	}

	/** The whole server: PostgreSQL's postmaster and its children, MariaDB's process (every thread). */
	private static long serverCpu(long pid, long tid, boolean postgres) throws IOException {
		long total = 0;
		if (postgres) {
			long postmaster = Long.parseLong(Files.readString(Paths.get("/proc", String.valueOf(pid), "stat"))
				.replaceAll("^.*\\) ", "")
				.split(" ")[1]);
			total += processCpu(postmaster);
			for (ProcessHandle child : ProcessHandle.of(postmaster).map(p -> p.children().toList()).orElse(List.of())) {
				total += processCpu(child.pid());
			}
			return total;
		}
		return processCpu(pid);
	}

	private static long processCpu(long pid) throws IOException {
		long total = 0;
		try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Paths.get("/proc", String.valueOf(pid), "task"))) {
			for (Path task : tasks) {
				try {
					total += schedstat(task.resolve("schedstat"));
				}
				catch (IOException ex) {
					// a thread that ended
				}
			}
		}
		catch (IOException ex) {
			return 0; // a process that ended
		}
		return total;
	}

	private static long schedstat(Path path) throws IOException {
		return Long.parseLong(Files.readString(path).split(" ")[0]);
	}

}
