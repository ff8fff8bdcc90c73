package dev.distlock.benchmarks.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A redis-server of our own on a free port, from the binary on the PATH (or {@code REDIS_SERVER}), never the shared
 * 6379: no persistence, so the disk does not take part in the figures.
 */
public final class BenchmarkRedisServer implements AutoCloseable {

	private final Process process;

	private final int port;

	private BenchmarkRedisServer(Process process, int port) {
		this.process = process;
		this.port = port;
	}

	/** A started Lettuce connection factory to the server at the port on this machine; the caller destroys it. */
	public static LettuceConnectionFactory connect(int port) {
		LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", port));
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		return connectionFactory;
	}

	/**
	 * Starts the server and waits until it accepts connections.
	 */
	public static BenchmarkRedisServer start() {
		String binary = System.getenv().getOrDefault("REDIS_SERVER", "redis-server");
		int port = freePort();
		try {
			Path dir = Files.createTempDirectory("distlock-bench-redis");
			Process process = new ProcessBuilder(List.of(binary, "--port", Integer.toString(port), "--bind",
					"127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString()))
				.redirectErrorStream(true)
				.redirectOutput(dir.resolve("redis.log").toFile())
				.start();
			BenchmarkRedisServer server = new BenchmarkRedisServer(process, port);
			server.awaitListening();
			return server;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot start '" + binary + "'; set REDIS_SERVER to its path", ex);
		}
	}

	/**
	 * The port the server listens on, on 127.0.0.1.
	 */
	public int port() {
		return port;
	}

	private void awaitListening() {
		long end = System.nanoTime() + 10_000_000_000L;
		while (System.nanoTime() < end) {
			if (!process.isAlive()) {
				throw new IllegalStateException("redis-server exited with " + process.exitValue());
			}
			try (Socket socket = new Socket("127.0.0.1", port)) {
				return;
			}
			catch (IOException notYet) {
				sleep();
			}
		}
		close();
		throw new IllegalStateException("redis-server did not listen on port " + port + " within 10 s");
	}

	private static void sleep() {
		try {
			Thread.sleep(20);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Stops the server.
	 */
	@Override
	public void close() {
		process.destroy();
		try {
			process.waitFor();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
