package dev.distlock.redis.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A private {@code redis-server} on a free loopback port, without persistence ({@code --save "" --appendonly no}),
 * that a test can stop, kill and start again on the same port. Uses the binary on PATH, else the one shipped inside
 * {@code com.github.codemonstur:embedded-redis}. Never touches the shared server on 6379.
 */
public final class RedisServerProcess implements AutoCloseable {

	/** Generous: at a load average of 30 a fork and exec alone can take seconds. */
	private static final Duration STARTUP = Duration.ofSeconds(60);

	/**
	 * The connect timeout of every test factory, whatever its command timeout: a loaded machine can take over a second
	 * to accept a loopback connection ("Unable to connect" on a healthy server), while a stopped server refuses at
	 * once, so a long bound costs the failure tests nothing.
	 */
	private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

	/** The default command timeout of test factories: far above a healthy round trip on a loaded machine. */
	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(10);

	private final int port;

	private final Path directory;

	private final List<String> extraArguments;

	private @Nullable Process process;

	/**
	 * Starts a server on a free port.
	 */
	public static RedisServerProcess startOnFreePort() {
		RedisServerProcess server = new RedisServerProcess(freePort(false), List.of());
		server.start();
		return server;
	}

	/**
	 * A server (not yet started) on the port with extra {@code redis-server} arguments, such as cluster settings.
	 */
	public RedisServerProcess(int port, List<String> extraArguments) {
		this.port = port;
		this.extraArguments = List.copyOf(extraArguments);
		try {
			this.directory = Files.createTempDirectory("redis-" + port + "-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * The port the server listens on.
	 */
	public int port() {
		return port;
	}

	/**
	 * The working directory of the server (cluster node files live there).
	 */
	public Path directory() {
		return directory;
	}

	/**
	 * Starts the server and waits until it answers PING; does nothing if it runs.
	 */
	public synchronized void start() {
		if (process != null && process.isAlive()) {
			return;
		}
		List<String> command = new ArrayList<>(List.of(binary().toString(), "--port", String.valueOf(port), "--bind",
				"127.0.0.1", "--save", "", "--appendonly", "no", "--dir", directory.toString()));
		command.addAll(extraArguments);
		try {
			process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(directory.resolve("redis.log").toFile())
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start " + command, ex);
		}
		long deadline = System.nanoTime() + STARTUP.toNanos();
		while (!answersPing()) {
			if (!process.isAlive() || System.nanoTime() > deadline) {
				throw new IllegalStateException("redis-server on port " + port + " did not start; see "
						+ directory.resolve("redis.log"));
			}
			sleep(20);
		}
	}

	/**
	 * Stops the server with SIGTERM and waits for it to exit.
	 */
	public synchronized void stop() {
		if (process != null) {
			process.destroy();
			awaitExit();
		}
	}

	/**
	 * Kills the server with SIGKILL, as a crash would.
	 */
	public synchronized void kill() {
		if (process != null) {
			process.destroyForcibly();
			awaitExit();
		}
	}

	/**
	 * Freezes the server with SIGSTOP, as a long pause would: it accepts bytes but answers nothing until
	 * {@link #thaw()}, and then runs what it was sent meanwhile.
	 */
	public synchronized void freeze() {
		signal("STOP");
	}

	/**
	 * Lets a frozen server run again (SIGCONT).
	 */
	public synchronized void thaw() {
		signal("CONT");
	}

	private void signal(String signal) {
		if (process == null) {
			throw new IllegalStateException("redis-server on port " + port + " is not running");
		}
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(process.pid())).start();
			if (!kill.waitFor(30, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill -" + signal + " failed for redis-server on port " + port);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while signalling redis-server", ex);
		}
	}

	/**
	 * Stops and starts the server on the same port; without persistence it comes back empty.
	 */
	public void restart() {
		stop();
		start();
	}

	/**
	 * Whether the process runs.
	 */
	public synchronized boolean isRunning() {
		return process != null && process.isAlive();
	}

	/**
	 * A started Lettuce factory for this server with short timeouts, so a stopped server fails calls quickly.
	 */
	public LettuceConnectionFactory connectionFactory(Duration commandTimeout) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port),
				clientConfiguration(commandTimeout));
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * A started Lettuce factory with a ten-second command timeout (a loaded machine is not a faulty server).
	 */
	public LettuceConnectionFactory connectionFactory() {
		return connectionFactory(COMMAND_TIMEOUT);
	}

	/**
	 * Client settings with the command timeout and a generous connect timeout ({@link #CONNECT_TIMEOUT}).
	 */
	public static LettuceClientConfiguration clientConfiguration(Duration commandTimeout) {
		ClientOptions options = ClientOptions.builder()
			.socketOptions(SocketOptions.builder().connectTimeout(CONNECT_TIMEOUT).build())
			.build();
		return LettuceClientConfiguration.builder()
			.commandTimeout(commandTimeout)
			.shutdownTimeout(Duration.ZERO)
			.clientOptions(options)
			.build();
	}

	/**
	 * Stops the server and deletes its directory.
	 */
	@Override
	public void close() {
		kill();
		try (Stream<Path> files = Files.walk(directory)) {
			files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
		}
		catch (IOException ex) {
			// a leftover temp directory is harmless
		}
	}

	/**
	 * A free loopback port; with {@code clusterBus}, one whose cluster bus port (port + 10000) is free too.
	 */
	public static int freePort(boolean clusterBus) {
		for (int attempt = 0; attempt < 100; attempt++) {
			try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
				int port = socket.getLocalPort();
				if (port == 6379 || (clusterBus && (port > 55000 || !isFree(port + 10000)))) {
					continue;
				}
				return port;
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
		throw new IllegalStateException("No free port found");
	}

	/**
	 * The redis-server binary: the one on PATH, else the one inside embedded-redis, copied to a temp file once.
	 */
	public static Path binary() {
		return Binary.PATH;
	}

	/**
	 * An executable on PATH, such as {@code redis-cli}.
	 */
	public static Optional<Path> onPath(String name) {
		String path = System.getenv("PATH");
		if (path == null) {
			return Optional.empty();
		}
		for (String dir : path.split(File.pathSeparator)) {
			Path candidate = Path.of(dir, name);
			if (Files.isExecutable(candidate)) {
				return Optional.of(candidate);
			}
		}
		return Optional.empty();
	}

	private boolean answersPing() {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
			socket.setSoTimeout(5000);
			OutputStream out = socket.getOutputStream();
			out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			byte[] answer = new byte[7];
			int read = socket.getInputStream().read(answer);
			return read > 0 && new String(answer, 0, read, StandardCharsets.US_ASCII).startsWith("+PONG");
		}
		catch (IOException ex) {
			return false;
		}
	}

	private void awaitExit() {
		try {
			if (!process.waitFor(10, TimeUnit.SECONDS)) {
				process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static boolean isFree(int port) {
		try (ServerSocket socket = new ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for redis-server", ex);
		}
	}

	/** Resolves the binary once per JVM. */
	private static final class Binary {

		static final Path PATH = resolve();

		private static Path resolve() {
			Optional<Path> installed = onPath("redis-server");
			if (installed.isPresent()) {
				return installed.get();
			}
			String arch = System.getProperty("os.arch");
			String resource = arch.contains("aarch64") || arch.contains("arm64") ? "/redis-server-6.2.7-linux-arm64"
					: "/redis-server-6.2.6-v5-linux-amd64";
			try (InputStream in = RedisServerProcess.class.getResourceAsStream(resource)) {
				if (in == null) {
					throw new IllegalStateException("No redis-server on PATH and no " + resource + " in embedded-redis");
				}
				Path target = Files.createTempFile("redis-server-", "");
				Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
				target.toFile().setExecutable(true);
				target.toFile().deleteOnExit();
				return target;
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

	}

}
