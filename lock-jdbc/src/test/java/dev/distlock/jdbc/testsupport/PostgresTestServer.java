package dev.distlock.jdbc.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * A PostgreSQL server of its own for the tests: {@code initdb} and {@code pg_ctl} from the directory
 * {@code pg_config --bindir} prints, on a free port and a temporary directory, run as the {@code postgres} user when
 * this JVM runs as root (PostgreSQL refuses root). One per test JVM ({@link #shared()}), stopped at exit; it can be
 * restarted in place to prove what survives a restart.
 */
public final class PostgresTestServer {

	private static PostgresTestServer shared;

	private final Path bin;

	private final Path dir;

	private final Path data;

	private final int port;

	private PostgresTestServer(Path bin) {
		this.bin = bin;
		this.port = ServerProcess.freePort();
		try {
			this.dir = Files.createTempDirectory("distlock-pg-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		this.data = dir.resolve("data");
		if (ServerProcess.isRoot()) {
			ServerProcess.run(List.of("chown", "-R", "postgres:postgres", dir.toString()));
		}
		ServerProcess.run(ServerProcess.as("postgres", bin.resolve("initdb").toString(), "-D", data.toString(),
				"-U", "distlock", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"));
		start();
		Runtime.getRuntime().addShutdownHook(new Thread(this::destroy, "postgres-test-server-stop"));
	}

	/**
	 * The server of this test JVM, started on first use.
	 * @throws org.opentest4j.TestAbortedException when no PostgreSQL binaries are installed
	 */
	public static synchronized PostgresTestServer shared() {
		if (shared == null) {
			Path bin = binaries();
			org.junit.jupiter.api.Assumptions.assumeTrue(bin != null,
					"No PostgreSQL binaries (pg_config --bindir); install postgresql or run .ci/run");
			shared = new PostgresTestServer(bin);
		}
		return shared;
	}

	private static Path binaries() {
		try {
			String out = ServerProcess.run(List.of("pg_config", "--bindir")).trim();
			Path bin = Paths.get(out);
			return Files.isExecutable(bin.resolve("pg_ctl")) ? bin : null;
		}
		catch (RuntimeException ex) {
			Path debian = Paths.get("/usr/lib/postgresql/15/bin");
			return Files.isExecutable(debian.resolve("pg_ctl")) ? debian : null;
		}
	}

	/** Starts the server (again) and waits until it accepts connections. */
	public synchronized void start() {
		ServerProcess.run(ServerProcess.as("postgres", bin.resolve("pg_ctl").toString(), "-D", data.toString(),
				"-l", dir.resolve("server.log").toString(), "-w", "-t", String.valueOf(ServerProcess.STARTUP.toSeconds()),
				"-o", "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1 -c fsync=off"
						+ " -c full_page_writes=off -c max_connections=300",
				"start"));
		ServerProcess.awaitPort(port, null);
	}

	/** Stops the server at once (as a crash would, {@code immediate}); {@link #start()} brings it back. */
	public synchronized void stop() {
		ServerProcess.run(ServerProcess.as("postgres", bin.resolve("pg_ctl").toString(), "-D", data.toString(),
				"-m", "immediate", "-w", "stop"));
	}

	private void destroy() {
		try {
			stop();
		}
		catch (RuntimeException ignored) {
			// already stopped
		}
		ServerProcess.deleteTree(dir);
	}

	/** The port the server listens on. */
	public int port() {
		return port;
	}

	/** A JDBC URL to the server on {@code port} (the server's, or a proxy's in front of it). */
	public String jdbcUrl(int port) {
		return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
	}

	/** The JDBC URL of the server. */
	public String jdbcUrl() {
		return jdbcUrl(port);
	}

	/** The user that owns the cluster; it logs in without a password. */
	public String user() {
		return "distlock";
	}

	/** A new pool of {@code size} connections to {@code url}; the caller closes it. */
	public HikariDataSource pool(String url, int size) {
		return pool(url, size, null);
	}

	/** A new pool of {@code size} connections to {@code url}, each running {@code initSql} first if given. */
	public HikariDataSource pool(String url, int size, String initSql) {
		HikariConfig config = new HikariConfig();
		config.setConnectionInitSql(initSql);
		config.setJdbcUrl(url);
		config.setUsername(user());
		config.setMaximumPoolSize(size);
		config.setMinimumIdle(0);
		config.setConnectionTimeout(60_000);
		config.setPoolName("pg-test-" + size);
		return new HikariDataSource(config);
	}

	/** A new pool of 10 connections straight to the server. */
	public HikariDataSource pool() {
		return pool(jdbcUrl(), 10);
	}

	/** Runs one statement on a fresh connection straight to the server. */
	public void execute(DataSource dataSource, String sql) {
		try (var connection = dataSource.getConnection(); var statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (java.sql.SQLException ex) {
			throw new IllegalStateException(sql, ex);
		}
	}

}
