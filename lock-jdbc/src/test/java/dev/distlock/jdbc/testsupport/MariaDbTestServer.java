package dev.distlock.jdbc.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;

/**
 * A MariaDB server of its own for the tests: {@code mariadb-install-db} into a temporary directory, then
 * {@code mariadbd} on a free port with a socket in that directory and no grant tables (no passwords to manage). One per
 * test JVM ({@link #shared()}), stopped at exit; it can be restarted in place.
 */
public final class MariaDbTestServer {

	private static MariaDbTestServer shared;

	private final Path dir;

	private final Path data;

	private final int port;

	private Process process;

	private MariaDbTestServer() {
		this.port = ServerProcess.freePort();
		try {
			this.dir = Files.createTempDirectory("distlock-mariadb-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		this.data = dir.resolve("data");
		ServerProcess.run(List.of("mariadb-install-db", "--no-defaults", "--datadir=" + data,
				"--auth-root-authentication-method=normal", "--skip-test-db", "--user=" + System.getProperty("user.name")));
		start();
		Runtime.getRuntime().addShutdownHook(new Thread(this::destroy, "mariadb-test-server-stop"));
	}

	/**
	 * The server of this test JVM, started on first use.
	 * @throws org.opentest4j.TestAbortedException when mariadbd is not installed
	 */
	public static synchronized MariaDbTestServer shared() {
		if (shared == null) {
			org.junit.jupiter.api.Assumptions.assumeTrue(installed(),
					"No mariadbd/mariadb-install-db; install mariadb-server or run .ci/run");
			shared = new MariaDbTestServer();
		}
		return shared;
	}

	private static boolean installed() {
		return Files.isExecutable(Paths.get("/usr/sbin/mariadbd")) || onPath("mariadbd");
	}

	private static boolean onPath(String name) {
		for (String entry : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
			if (Files.isExecutable(Paths.get(entry, name))) {
				return true;
			}
		}
		return false;
	}

	private static String mariadbd() {
		return onPath("mariadbd") ? "mariadbd" : "/usr/sbin/mariadbd";
	}

	/** Starts the server (again) and waits until it accepts connections. */
	public synchronized void start() {
		try {
			process = new ProcessBuilder(mariadbd(), "--no-defaults", "--user=" + System.getProperty("user.name"),
					"--datadir=" + data, "--port=" + port, "--bind-address=127.0.0.1",
					"--socket=" + dir.resolve("mariadb.sock"), "--pid-file=" + dir.resolve("mariadb.pid"),
					"--skip-grant-tables", "--skip-log-bin", "--innodb-buffer-pool-size=64M",
					"--innodb-flush-log-at-trx-commit=2", "--max-connections=300", "--skip-name-resolve",
					"--log-error=" + dir.resolve("error.log"))
				.redirectErrorStream(true)
				.redirectOutput(dir.resolve("stdout.log").toFile())
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		ServerProcess.awaitPort(port, process);
	}

	/** Kills the server at once, as a crash would; {@link #start()} brings it back. */
	public synchronized void stop() {
		if (process != null) {
			process.destroyForcibly();
			try {
				process.waitFor();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			process = null;
		}
	}

	private void destroy() {
		stop();
		ServerProcess.deleteTree(dir);
	}

	/** The port the server listens on. */
	public int port() {
		return port;
	}

	/**
	 * A JDBC URL to the server on {@code port} (the server's, or a proxy's in front of it), with the driver options of
	 * {@code -Ddistlock.test.mariadbUrlOptions} (e.g. {@code useServerPrepStmts=true}) when given.
	 */
	public String jdbcUrl(int port) {
		String options = System.getProperty("distlock.test.mariadbUrlOptions", "");
		return "jdbc:mariadb://127.0.0.1:" + port + "/distlock?createDatabaseIfNotExist=true"
				+ (options.isEmpty() ? "" : "&" + options);
	}

	/** The JDBC URL of the server. */
	public String jdbcUrl() {
		return jdbcUrl(port);
	}

	/** The user (no password, no grant tables). */
	public String user() {
		return "root";
	}

	/** A new pool of {@code size} connections to {@code url}; the caller closes it. */
	public HikariDataSource pool(String url, int size) {
		return pool(url, size, null);
	}

	/** A new pool of {@code size} connections to {@code url}, each running {@code initSql} first if given. */
	public HikariDataSource pool(String url, int size, String initSql) {
		return ServerProcess.pool(url, user(), size, initSql, "mariadb-test");
	}

	/** A new pool of 10 connections straight to the server. */
	public HikariDataSource pool() {
		return pool(jdbcUrl(), 10);
	}

}
