package dev.distlock.jdbc.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * What both test servers share: a free port that is never a shared server's, commands run (as another user when the
 * database refuses root) with a generous deadline, a readiness wait on the port, and the tests' connection pools.
 */
final class ServerProcess {

	/** Startup and readiness waits: generous, a loaded 2-core machine starts a database slowly. */
	static final Duration STARTUP = Duration.ofMinutes(3);

	private ServerProcess() {
	}

	/** A free TCP port on the loopback interface, never 5432 or 3306 (the machine's shared servers). */
	static int freePort() {
		for (int i = 0; i < 20; i++) {
			try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
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

	static boolean isRoot() {
		return "root".equals(System.getProperty("user.name"));
	}

	/** Runs a command to its end within {@link #STARTUP}, failing with its output when it fails. */
	static String run(List<String> command) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			byte[] output = process.getInputStream().readAllBytes();
			if (!process.waitFor(STARTUP.toSeconds(), TimeUnit.SECONDS)) {
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

	/** The command, run as {@code user} through runuser when this JVM runs as root. */
	static List<String> as(String user, String... command) {
		List<String> full = new ArrayList<>();
		if (isRoot()) {
			full.addAll(List.of("runuser", "-u", user, "--"));
		}
		full.addAll(List.of(command));
		return full;
	}

	/** Waits until the port accepts connections, or fails after {@link #STARTUP}. */
	static void awaitPort(int port, Process orLog) {
		long deadline = System.nanoTime() + STARTUP.toNanos();
		while (System.nanoTime() - deadline < 0) {
			try (Socket socket = new Socket()) {
				socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
				return;
			}
			catch (IOException notYet) {
				if (orLog != null && !orLog.isAlive()) {
					throw new IllegalStateException("The server exited with " + orLog.exitValue());
				}
				sleep(100);
			}
		}
		throw new IllegalStateException("Port " + port + " did not open within " + STARTUP);
	}

	static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** Deletes a directory tree, best effort. */
	static void deleteTree(Path root) {
		if (!Files.exists(root)) {
			return;
		}
		try (Stream<Path> paths = Files.walk(root)) {
			paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
		}
		catch (IOException ignored) {
			// a temporary directory: the OS cleans up what is left
		}
	}


	/**
	 * A new pool of {@code size} connections to {@code url} as {@code user}, each running {@code initSql} first if
	 * given, opened on demand, with a connection wait a loaded machine does not run out of; the caller closes it.
	 */
	static HikariDataSource pool(String url, String user, int size, String initSql, String name) {
		HikariConfig config = new HikariConfig();
		config.setConnectionInitSql(initSql);
		config.setJdbcUrl(url);
		config.setUsername(user);
		config.setMaximumPoolSize(size);
		config.setMinimumIdle(0);
		config.setConnectionTimeout(60_000);
		config.setPoolName(name + "-" + size);
		return new HikariDataSource(config);
	}

}
