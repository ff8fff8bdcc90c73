package dev.distlock.benchmarks.jdbc;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;

import dev.distlock.benchmarks.harness.ConnectionGauge;
import dev.distlock.jdbc.JdbcDialect;

/**
 * A database server of the benchmark's own, on a free port (never 5432 or 3306) in a temporary directory, deleted on
 * close: PostgreSQL by {@code initdb} and {@code pg_ctl} from {@code pg_config --bindir} (as the {@code postgres} user
 * when this JVM runs as root, which PostgreSQL refuses), or MariaDB by {@code mariadb-install-db} and
 * {@code mariadbd --user=root} without grant tables. Both run without durable commits ({@code fsync=off};
 * {@code innodb_flush_log_at_trx_commit=2}), as the lock-jdbc tests do: the figures are the lock statements' cost, not
 * the disk's, and every arm runs on the same server.
 */
public final class BenchmarkDatabase implements AutoCloseable {

	private static final long STARTUP_SECONDS = 180;

	private static final String TIMEOUT_PREFIX = "SET STATEMENT MAX_STATEMENT_TIME = ? FOR ";

	private final JdbcDialect dialect;

	private final Path dir;

	private final int port;

	private final @Nullable Path pgBin;

	private @Nullable Process mariadb;

	/** Statements one reading of {@link #statements()} adds to the count (its own connection's). */
	private long readingCost;

	private long readings;

	private BenchmarkDatabase(JdbcDialect dialect, Path dir, int port, @Nullable Path pgBin) {
		this.dialect = dialect;
		this.dir = dir;
		this.port = port;
		this.pgBin = pgBin;
	}

	/** A PostgreSQL server, initialised and started. */
	public static BenchmarkDatabase postgres() {
		Path bin = Paths.get(run(List.of("pg_config", "--bindir")).trim());
		BenchmarkDatabase db = new BenchmarkDatabase(JdbcDialect.POSTGRESQL, tempDir("distlock-bench-pg-"), freePort(),
				bin);
		Path data = db.dir.resolve("data");
		if (isRoot()) {
			run(List.of("chown", "-R", "postgres:postgres", db.dir.toString()));
		}
		run(as("postgres", bin.resolve("initdb").toString(), "-D", data.toString(), "-U", "distlock", "--auth=trust",
				"-E", "UTF8", "--locale=C", "--no-sync"));
		run(as("postgres", bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-l",
				db.dir.resolve("server.log").toString(), "-w", "-t", String.valueOf(STARTUP_SECONDS), "-o",
				"-p " + db.port + " -k " + db.dir + " -c listen_addresses=127.0.0.1 -c fsync=off"
						+ " -c full_page_writes=off -c max_connections=400"
						+ " -c shared_preload_libraries=pg_stat_statements",
				"start"));
		awaitPort(db.port, null);
		db.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
		db.calibrateStatements();
		return db;
	}

	/** A MariaDB server, initialised and started. */
	public static BenchmarkDatabase mariadb() {
		BenchmarkDatabase db = new BenchmarkDatabase(JdbcDialect.MARIADB, tempDir("distlock-bench-mariadb-"),
				freePort(), null);
		Path data = db.dir.resolve("data");
		String user = System.getProperty("user.name");
		run(List.of("mariadb-install-db", "--no-defaults", "--datadir=" + data,
				"--auth-root-authentication-method=normal", "--skip-test-db", "--user=" + user));
		String mariadbd = onPath("mariadbd") ? "mariadbd" : "/usr/sbin/mariadbd";
		try {
			db.mariadb = new ProcessBuilder(mariadbd, "--no-defaults", "--user=" + user, "--datadir=" + data,
					"--port=" + db.port, "--bind-address=127.0.0.1", "--socket=" + db.dir.resolve("mariadb.sock"),
					"--pid-file=" + db.dir.resolve("mariadb.pid"), "--skip-grant-tables", "--skip-log-bin",
					"--innodb-buffer-pool-size=128M", "--innodb-flush-log-at-trx-commit=2", "--max-connections=600",
					"--skip-name-resolve", "--performance-schema=ON", "--log-error=" + db.dir.resolve("error.log"))
				.redirectErrorStream(true)
				.redirectOutput(db.dir.resolve("stdout.log").toFile())
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		awaitPort(db.port, db.mariadb);
		db.calibrateStatements();
		return db;
	}

	/** The dialect of this server. */
	public JdbcDialect dialect() {
		return dialect;
	}

	/** The product's name and the server's version, for the report. */
	public String description() {
		String version = query(dialect == JdbcDialect.POSTGRESQL ? "SHOW server_version" : "SELECT VERSION()");
		return (dialect == JdbcDialect.POSTGRESQL ? "PostgreSQL " : "MariaDB ") + version;
	}

	/** The JDBC URL of the server's benchmark database. */
	public String jdbcUrl() {
		return dialect == JdbcDialect.POSTGRESQL ? "jdbc:postgresql://127.0.0.1:" + port + "/postgres"
				: "jdbc:mariadb://127.0.0.1:" + port + "/bench?createDatabaseIfNotExist=true";
	}

	/** The user every arm connects as (no password). */
	public String user() {
		return dialect == JdbcDialect.POSTGRESQL ? "distlock" : "root";
	}

	/**
	 * A new pool of at most {@code size} connections, opened on demand (none idle at start), in autocommit, reporting
	 * every borrow and return to the gauge; {@code urlOptions} are appended to the URL's query (or empty).
	 */
	public HikariDataSource pool(String name, int size, ConnectionGauge gauge, String urlOptions) {
		HikariConfig config = new HikariConfig();
		String url = jdbcUrl();
		for (String options : new String[] { urlOptions, extraUrlOptions() }) {
			if (!options.isEmpty()) {
				url += (url.contains("?") ? "&" : "?") + options;
			}
		}
		config.setJdbcUrl(url);
		config.setUsername(user());
		config.setMaximumPoolSize(size);
		config.setMinimumIdle(0);
		config.setConnectionTimeout(60_000);
		config.setPoolName(name);
		config.setMetricsTrackerFactory(gauge);
		return new HikariDataSource(config);
	}

	/**
	 * Driver options added to every pool of every arm on this database, the same for all:
	 * {@code -Dbench.mariadbUrlOptions} (e.g. {@code useServerPrepStmts=true}) or {@code -Dbench.postgresUrlOptions};
	 * empty by default.
	 */
	public String extraUrlOptions() {
		return System.getProperty(dialect == JdbcDialect.POSTGRESQL ? "bench.postgresUrlOptions"
				: "bench.mariadbUrlOptions", "");
	}

	/** Runs each statement on a connection of its own, outside any pool. */
	public void execute(String... statements) {
		try (Connection connection = connect(); Statement statement = connection.createStatement()) {
			for (String sql : statements) {
				statement.execute(sql);
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(String.join("; ", statements), ex);
		}
	}

	/**
	 * Client connections the server has open, this one's own left out: PostgreSQL's client backends in
	 * {@code pg_stat_activity}, MariaDB's {@code Threads_connected}.
	 */
	public long serverConnections() {
		String sql = dialect == JdbcDialect.POSTGRESQL
				? "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'"
				: "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'THREADS_CONNECTED'";
		return Long.parseLong(query(sql)) - 1;
	}

	/**
	 * How many statements the server has run for clients, less those of these readings: the sum of
	 * {@code pg_stat_statements.calls} on PostgreSQL (utility statements such as COMMIT included), the
	 * {@code Questions} status on MariaDB. The difference of two readings is what the clients sent between them.
	 */
	public long statements() {
		return rawStatements() - readingCost * ++readings;
	}

	private long rawStatements() {
		return Long.parseLong(query(dialect == JdbcDialect.POSTGRESQL ? "SELECT sum(calls) FROM pg_stat_statements"
				: "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'QUESTIONS'"));
	}

	/**
	 * On PostgreSQL, the sequential scans of {@code table} so far ({@code pg_stat_user_tables.seq_scan}, which each
	 * backend reports at most once a second, and within seconds once idle); -1 on MariaDB, whose InnoDB tables are
	 * clustered on the primary key, so a lookup by key never scans. A statement by key that scans its table runs a
	 * plan the planner chose while the table looked empty or tiny (docs/JDBC.md, "The planner and a churning table").
	 */
	public long seqScans(String table) {
		if (dialect != JdbcDialect.POSTGRESQL) {
			return -1;
		}
		return Long.parseLong(query("SELECT COALESCE(sum(seq_scan), 0) FROM pg_stat_user_tables WHERE relname = '"
				+ table + "'"));
	}

	/** Empties the server's per-statement figures, before {@link #statementTimes(int)}. */
	public void resetStatementTimes() {
		execute(dialect == JdbcDialect.POSTGRESQL ? "SELECT pg_stat_statements_reset()"
				: "TRUNCATE TABLE performance_schema.events_statements_summary_by_digest");
	}

	/**
	 * Each statement the clients ran since {@link #resetStatementTimes()}, as its first words, with its calls per cycle
	 * and the server's mean time per call in microseconds ({@code pg_stat_statements.total_exec_time};
	 * {@code performance_schema} digests on MariaDB), most called first.
	 */
	public Map<String, double[]> statementTimes(int cycles) {
		String sql = dialect == JdbcDialect.POSTGRESQL
				? "SELECT query, calls, total_exec_time * 1000 FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat%' "
						+ "ORDER BY calls DESC, query"
				: "SELECT DIGEST_TEXT, COUNT_STAR, SUM_TIMER_WAIT / 1000000 FROM "
						+ "performance_schema.events_statements_summary_by_digest WHERE DIGEST_TEXT IS NOT NULL AND "
						+ "DIGEST_TEXT NOT LIKE '%performance_schema%' ORDER BY COUNT_STAR DESC, DIGEST_TEXT";
		Map<String, double[]> times = new LinkedHashMap<>();
		try (Connection connection = connect();
				Statement statement = connection.createStatement();
				ResultSet rs = statement.executeQuery(sql)) {
			while (rs.next()) {
				long calls = rs.getLong(2);
				if (calls * 10 < cycles) {
					continue; // the harness's own and the odd background statement
				}
				times.merge(abbreviate(rs.getString(1)),
						new double[] { calls / (double) cycles, rs.getDouble(3) / calls },
						(a, b) -> new double[] { a[0] + b[0], (a[1] * a[0] + b[1] * b[0]) / (a[0] + b[0]) });
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(sql, ex);
		}
		return times;
	}

	/**
	 * The statement's first words, enough to tell the lock statements apart; MariaDB's per-statement timeout prefix
	 * (which the driver adds for a query timeout) is shown as {@code [timeout]}.
	 */
	private static String abbreviate(String sql) {
		String flat = sql.replaceAll("\\s+", " ").replace("`", "").trim();
		String prefix = "";
		if (flat.startsWith(TIMEOUT_PREFIX)) {
			prefix = "[timeout] ";
			flat = flat.substring(TIMEOUT_PREFIX.length());
		}
		return prefix + (flat.length() <= 64 ? flat : flat.substring(0, 61) + "...");
	}

	/** Measures what one reading adds, from readings with nothing else running. */
	private void calibrateStatements() {
		long first = rawStatements();
		long second = rawStatements();
		long third = rawStatements();
		readingCost = Math.max(0, Math.min(second - first, third - second));
	}

	private String query(String sql) {
		try (Connection connection = connect();
				Statement statement = connection.createStatement();
				ResultSet rs = statement.executeQuery(sql)) {
			rs.next();
			return rs.getString(1);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(sql, ex);
		}
	}

	private Connection connect() throws SQLException {
		return DriverManager.getConnection(jdbcUrl(), user(), "");
	}

	/**
	 * CPU time the server's processes have used, in nanoseconds, from {@code /proc} (Linux; clock ticks, so 10 ms
	 * steps): MariaDB's one process, or PostgreSQL's postmaster with its live backends and those it has reaped. The
	 * difference of two readings is what the server spent between them; -1 where {@code /proc} cannot be read.
	 */
	public long serverCpuNanos() {
		try {
			long root = mariadb != null ? mariadb.pid()
					: Long.parseLong(Files.readAllLines(dir.resolve("data").resolve("postmaster.pid")).get(0).trim());
			long ticks = cpuTicks(root, true);
			for (ProcessHandle child : ProcessHandle.of(root).map(p -> p.children().toList()).orElse(List.of())) {
				ticks += Math.max(0, cpuTicks(child.pid(), false));
			}
			return ticks * 10_000_000L;
		}
		catch (IOException | RuntimeException ex) {
			return -1;
		}
	}

	/** utime + stime (and the reaped children's, when asked) of one process, in clock ticks (100 per second). */
	private static long cpuTicks(long pid, boolean reaped) throws IOException {
		String stat = Files.readString(Paths.get("/proc", String.valueOf(pid), "stat"));
		String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
		// fields[0] is the state (field 3); utime is field 14, stime 15, cutime 16, cstime 17
		long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
		if (reaped) {
			ticks += Long.parseLong(fields[13]) + Long.parseLong(fields[14]);
		}
		return ticks;
	}

	/** Stops the server and deletes its directory. */
	@Override
	public void close() {
		try {
			if (pgBin != null) {
				run(as("postgres", pgBin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-m",
						"immediate", "-w", "stop"));
			}
			if (mariadb != null) {
				mariadb.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
			}
		}
		catch (RuntimeException ex) {
			// already stopped: the directory still goes
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		try (Stream<Path> paths = Files.walk(dir)) {
			paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
		}
		catch (IOException ex) {
			// a temporary directory: the OS cleans up what is left
		}
	}

	private static Path tempDir(String prefix) {
		try {
			return Files.createTempDirectory(prefix);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static int freePort() {
		for (int i = 0; i < 20; i++) {
			try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
				int port = socket.getLocalPort();
				if (port != 5432 && port != 3306) {
					return port;
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
		throw new IllegalStateException("No free port found");
	}

	private static boolean isRoot() {
		return "root".equals(System.getProperty("user.name"));
	}

	private static boolean onPath(String name) {
		for (String entry : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
			if (Files.isExecutable(Paths.get(entry, name))) {
				return true;
			}
		}
		return false;
	}

	private static List<String> as(String user, String... command) {
		List<String> full = new ArrayList<>();
		if (isRoot()) {
			full.addAll(List.of("runuser", "-u", user, "--"));
		}
		full.addAll(List.of(command));
		return full;
	}

	private static String run(List<String> command) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			byte[] output = process.getInputStream().readAllBytes();
			if (!process.waitFor(STARTUP_SECONDS, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				throw new IllegalStateException("Timed out: " + command);
			}
			String text = new String(output, StandardCharsets.UTF_8);
			if (process.exitValue() != 0) {
				throw new IllegalStateException("Failed (" + process.exitValue() + "): " + command + "\n" + text);
			}
			return text;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static void awaitPort(int port, @Nullable Process process) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STARTUP_SECONDS);
		while (System.nanoTime() - deadline < 0) {
			try (Socket socket = new Socket()) {
				socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
				return;
			}
			catch (IOException notYet) {
				if (process != null && !process.isAlive()) {
					throw new IllegalStateException("The database server exited with " + process.exitValue());
				}
				JdbcPause.sleep(100);
			}
		}
		throw new IllegalStateException("Port " + port + " did not open within " + STARTUP_SECONDS + " s");
	}

}
