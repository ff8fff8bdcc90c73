package dev.distlock.redis.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A real Sentinel topology on loopback: a master, one replica ({@code --replicaof}) and three sentinels
 * ({@code redis-server sentinel.conf --sentinel}, quorum 2) monitoring it as {@value #MASTER_NAME}, all on free ports,
 * with a short {@code down-after-milliseconds} so a killed master is replaced within seconds. Faults: kill -9 the
 * master, SIGSTOP/SIGCONT the replica, cut the master's replication link. Needs {@code redis-server} and
 * {@code redis-cli} on PATH; see {@link #unavailableReason()}.
 */
public final class RedisSentinelProcess implements AutoCloseable {

	/** The name the sentinels monitor the master under ({@code spring.data.redis.sentinel.master}). */
	public static final String MASTER_NAME = "m";

	private static final Duration STARTUP = Duration.ofSeconds(20);

	private final RedisServerProcess master;

	private final RedisServerProcess replica;

	private final List<Sentinel> sentinels = new ArrayList<>();

	/** The replica's process id once it was stopped, so close() can resume it. */
	private long replicaPid;

	private RedisSentinelProcess(RedisServerProcess master, RedisServerProcess replica) {
		this.master = master;
		this.replica = replica;
	}

	/**
	 * Why the topology cannot be started here, or empty when it can.
	 */
	public static Optional<String> unavailableReason() {
		return RedisClusterProcess.unavailableReason();
	}

	/**
	 * Starts master, replica and three sentinels, and waits until the replica is in sync and every sentinel knows
	 * the replica and the two other sentinels (so a failover can be authorised at once).
	 * @param downAfter the sentinels' {@code down-after-milliseconds}: how long the master may be silent before it
	 * is considered down
	 */
	public static RedisSentinelProcess start(Duration downAfter) {
		// No delay before a diskless full sync (5 s by default): the replica is in sync as soon as it can be.
		RedisServerProcess master = new RedisServerProcess(RedisServerProcess.freePort(false),
				List.of("--repl-diskless-sync-delay", "0"));
		int replicaPort = RedisServerProcess.freePort(false);
		RedisServerProcess replica = new RedisServerProcess(replicaPort,
				List.of("--replicaof", "127.0.0.1", String.valueOf(master.port()), "--repl-diskless-sync-delay", "0"));
		RedisSentinelProcess topology = new RedisSentinelProcess(master, replica);
		try {
			master.start();
			replica.start();
			topology.awaitLinkUp();
			for (int i = 0; i < 3; i++) {
				topology.sentinels.add(Sentinel.start(master.port(), downAfter));
			}
			topology.awaitSentinelsReady();
			return topology;
		}
		catch (RuntimeException ex) {
			topology.close();
			throw ex;
		}
	}

	/**
	 * The server that was started as master.
	 */
	public RedisServerProcess master() {
		return master;
	}

	/**
	 * The server that was started as replica.
	 */
	public RedisServerProcess replica() {
		return replica;
	}

	/**
	 * The sentinels as {@code host:port}, the form of {@code spring.data.redis.sentinel.nodes}.
	 */
	public List<String> sentinelNodes() {
		return sentinels.stream().map(sentinel -> "127.0.0.1:" + sentinel.port).toList();
	}

	/**
	 * A started Lettuce factory that finds the master through the sentinels, with short timeouts.
	 */
	public LettuceConnectionFactory connectionFactory(Duration commandTimeout) {
		RedisSentinelConfiguration configuration = new RedisSentinelConfiguration(MASTER_NAME,
				new java.util.HashSet<>(sentinelNodes()));
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration,
				RedisServerProcess.clientConfiguration(commandTimeout));
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * The port of the master the first answering sentinel names now.
	 */
	public int currentMasterPort() {
		for (Sentinel sentinel : sentinels) {
			try {
				String answer = cli(sentinel.port, "SENTINEL", "get-master-addr-by-name", MASTER_NAME);
				String[] lines = answer.strip().split("\\R");
				return Integer.parseInt(lines[lines.length - 1].strip());
			}
			catch (RuntimeException ex) {
				// try the next sentinel
			}
		}
		throw new IllegalStateException("No sentinel names a master");
	}

	/**
	 * Waits until the sentinels name the replica as master and it answers as one; returns how long that took.
	 */
	public Duration awaitPromotion(Duration bound) {
		long start = System.nanoTime();
		long deadline = start + bound.toNanos();
		while (System.nanoTime() < deadline) {
			if (currentMasterPort() == replica.port() && role(replica.port()).startsWith("master")) {
				return Duration.ofNanos(System.nanoTime() - start);
			}
			pause(50);
		}
		throw new IllegalStateException("The replica on " + replica.port() + " was not promoted within " + bound);
	}

	/**
	 * Kills the master with SIGKILL, as a crash would.
	 */
	public void killMaster() {
		master.kill();
	}

	/**
	 * Freezes the replica with SIGSTOP: it reads nothing more until {@link #continueReplica()}.
	 */
	public void stopReplica() {
		signal("STOP", pid(replica.port()));
	}

	/**
	 * Resumes the replica with SIGCONT.
	 */
	public void continueReplica() {
		signal("CONT", replicaPid);
	}

	/**
	 * Closes the master's connection to its replica ({@code CLIENT KILL TYPE replica}), as the master does when a
	 * replica overflows its output buffer: writes from now on reach the replica only once it has connected again.
	 */
	public void cutReplicationLink() {
		cli(master.port(), "CLIENT", "KILL", "TYPE", "replica");
	}

	/**
	 * Stops every process and deletes their directories.
	 */
	@Override
	public void close() {
		if (replicaPid > 0) {
			signal("CONT", replicaPid); // a stopped process does not die of SIGTERM
		}
		sentinels.forEach(Sentinel::close);
		replica.close();
		master.close();
	}

	private long pid(int port) {
		for (String line : cli(port, "INFO", "server").split("\\R")) {
			if (line.startsWith("process_id:")) {
				long pid = Long.parseLong(line.substring("process_id:".length()).strip());
				if (port == replica.port()) {
					replicaPid = pid;
				}
				return pid;
			}
		}
		throw new IllegalStateException("INFO server on " + port + " has no process_id");
	}

	private static void signal(String signal, long pid) {
		run(List.of("kill", "-" + signal, String.valueOf(pid)));
	}

	private static String role(int port) {
		try {
			return cli(port, "ROLE").strip();
		}
		catch (RuntimeException ex) {
			return "";
		}
	}

	private void awaitLinkUp() {
		long deadline = System.nanoTime() + STARTUP.toNanos();
		while (!cli(replica.port(), "INFO", "replication").contains("master_link_status:up")) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("The replica on " + replica.port() + " did not sync with the master");
			}
			pause(50);
		}
	}

	private void awaitSentinelsReady() {
		long deadline = System.nanoTime() + STARTUP.toNanos();
		for (Sentinel sentinel : sentinels) {
			while (true) {
				boolean knowsReplica = cli(sentinel.port, "SENTINEL", "replicas", MASTER_NAME)
					.contains(String.valueOf(replica.port()));
				boolean quorum = knowsReplica
						&& cli(sentinel.port, "SENTINEL", "sentinels", MASTER_NAME).lines().filter("name"::equals).count() >= 2
						&& cli(sentinel.port, "SENTINEL", "ckquorum", MASTER_NAME).startsWith("OK");
				if (quorum) {
					break;
				}
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException("Sentinel " + sentinel.port + " did not see the replica and the other "
							+ "sentinels; see " + sentinel.directory);
				}
				pause(100);
			}
		}
	}

	/**
	 * Runs one {@code redis-cli} command against the server or sentinel on the port and returns its output.
	 */
	public static String cli(int port, String... arguments) {
		List<String> command = new ArrayList<>(List.of("redis-cli", "-p", String.valueOf(port)));
		command.addAll(List.of(arguments));
		return run(command);
	}

	private static String run(List<String> command) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!process.waitFor(10, TimeUnit.SECONDS) || process.exitValue() != 0
					|| output.startsWith("Could not connect")) {
				throw new IllegalStateException(command + " failed: " + output);
			}
			return output;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted running " + command, ex);
		}
	}

	private static void pause(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for the sentinel topology", ex);
		}
	}

	/** One sentinel process with its own writable config file (sentinels rewrite it). */
	private static final class Sentinel {

		private final int port;

		private final Path directory;

		private final Process process;

		private Sentinel(int port, Path directory, Process process) {
			this.port = port;
			this.directory = directory;
			this.process = process;
		}

		static Sentinel start(int masterPort, Duration downAfter) {
			int port = RedisServerProcess.freePort(false);
			try {
				Path directory = Files.createTempDirectory("redis-sentinel-" + port + "-");
				Path config = directory.resolve("sentinel.conf");
				Files.writeString(config, String.join("\n", "port " + port, "bind 127.0.0.1", "dir " + directory,
						"sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + masterPort + " 2",
						"sentinel down-after-milliseconds " + MASTER_NAME + " " + downAfter.toMillis(),
						"sentinel failover-timeout " + MASTER_NAME + " " + Math.max(3000, downAfter.toMillis() * 3),
						"sentinel parallel-syncs " + MASTER_NAME + " 1", ""));
				Process process = new ProcessBuilder(RedisServerProcess.binary().toString(), config.toString(),
						"--sentinel")
					.redirectErrorStream(true)
					.redirectOutput(directory.resolve("sentinel.log").toFile())
					.start();
				Sentinel sentinel = new Sentinel(port, directory, process);
				long deadline = System.nanoTime() + STARTUP.toNanos();
				while (true) {
					try {
						if (cli(port, "PING").startsWith("PONG")) {
							return sentinel;
						}
					}
					catch (RuntimeException ex) {
						// not listening yet
					}
					if (!process.isAlive() || System.nanoTime() > deadline) {
						sentinel.close();
						throw new IllegalStateException("Sentinel on " + port + " did not start; see " + directory);
					}
					pause(50);
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

		void close() {
			process.destroyForcibly();
			try {
				process.waitFor(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			try (Stream<Path> files = Files.walk(directory)) {
				files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
			}
			catch (IOException ex) {
				// a leftover temp directory is harmless
			}
		}

	}

}
