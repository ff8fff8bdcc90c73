package dev.distlock.redis.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A real Redis Cluster of masters, optionally with replicas, each a {@link RedisServerProcess} on a free port,
 * joined with {@code redis-cli --cluster create}. Needs {@code redis-cli} on PATH; see {@link #unavailableReason()}.
 */
public final class RedisClusterProcess implements AutoCloseable {

	private final List<RedisServerProcess> nodes = new ArrayList<>();

	private RedisClusterProcess() {
	}

	/**
	 * Why a cluster cannot be started here, or empty when it can.
	 */
	public static Optional<String> unavailableReason() {
		if (RedisServerProcess.onPath("redis-cli").isEmpty()) {
			return Optional.of("redis-cli is not on PATH, so no cluster can be created");
		}
		if (RedisServerProcess.onPath("redis-server").isEmpty()) {
			return Optional.of("redis-server is not on PATH (the embedded-redis binary is not used for clusters)");
		}
		return Optional.empty();
	}

	/**
	 * Starts {@code masters} nodes, creates the cluster and waits until every node reports {@code cluster_state:ok}.
	 */
	public static RedisClusterProcess start(int masters) {
		return start(masters, 0);
	}

	/**
	 * Starts {@code masters} nodes plus {@code replicasPerMaster} replicas of each, creates the cluster and waits
	 * until every node reports {@code cluster_state:ok}.
	 */
	public static RedisClusterProcess start(int masters, int replicasPerMaster) {
		RedisClusterProcess cluster = new RedisClusterProcess();
		try {
			for (int i = 0; i < masters * (1 + replicasPerMaster); i++) {
				// No delay before a diskless full sync (5 s by default): replicas are in sync as soon as they can be.
				RedisServerProcess node = new RedisServerProcess(RedisServerProcess.freePort(true),
						List.of("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
								"--cluster-node-timeout", "2000", "--repl-diskless-sync-delay", "0"));
				cluster.nodes.add(node);
				node.start();
			}
			List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
			cluster.nodes.forEach(node -> create.add("127.0.0.1:" + node.port()));
			create.addAll(List.of("--cluster-replicas", String.valueOf(replicasPerMaster), "--cluster-yes"));
			run(create, cluster.nodes.get(0).directory());
			for (RedisServerProcess node : cluster.nodes) {
				cluster.awaitOk(node);
			}
			if (replicasPerMaster > 0) {
				// A replica that never finished its first sync counts as disconnected for ever and refuses to fail over.
				for (RedisServerProcess node : cluster.nodes) {
					cluster.awaitInSync(node);
				}
			}
			return cluster;
		}
		catch (RuntimeException ex) {
			cluster.close();
			throw ex;
		}
	}

	/**
	 * The nodes, in port order of creation.
	 */
	public List<RedisServerProcess> nodes() {
		return List.copyOf(nodes);
	}

	/**
	 * The nodes that are masters now, by {@code ROLE}; a killed node is none.
	 */
	public List<RedisServerProcess> masters() {
		return nodes.stream().filter(RedisServerProcess::isRunning).filter(node -> {
			try {
				return run(List.of("redis-cli", "-p", String.valueOf(node.port()), "ROLE"), node.directory())
					.startsWith("master");
			}
			catch (RuntimeException ex) {
				return false;
			}
		}).toList();
	}

	/**
	 * The running node that replicates the master on the port, by {@code ROLE}.
	 */
	public RedisServerProcess replicaOf(int masterPort) {
		return nodes.stream().filter(RedisServerProcess::isRunning).filter(node -> {
			try {
				String[] role = run(List.of("redis-cli", "-p", String.valueOf(node.port()), "ROLE"), node.directory())
					.split("\\R");
				return role[0].equals("slave") && role[2].equals(String.valueOf(masterPort));
			}
			catch (RuntimeException ex) {
				return false;
			}
		}).findFirst().orElseThrow(() -> new IllegalStateException("No replica of " + masterPort));
	}

	/**
	 * A started Lettuce cluster factory for these nodes with short timeouts.
	 */
	public LettuceConnectionFactory connectionFactory(Duration commandTimeout) {
		RedisClusterConfiguration configuration = new RedisClusterConfiguration(
				nodes.stream().map(node -> "127.0.0.1:" + node.port()).toList());
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration,
				RedisServerProcess.clientConfiguration(commandTimeout));
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * Stops every node and deletes its directory.
	 */
	@Override
	public void close() {
		nodes.forEach(RedisServerProcess::close);
	}

	private void awaitOk(RedisServerProcess node) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (System.nanoTime() < deadline) {
			String info = run(List.of("redis-cli", "-p", String.valueOf(node.port()), "cluster", "info"),
					node.directory());
			if (info.contains("cluster_state:ok")) {
				return;
			}
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for the cluster", ex);
			}
		}
		throw new IllegalStateException("Cluster node " + node.port() + " did not reach cluster_state:ok");
	}

	private void awaitInSync(RedisServerProcess node) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (true) {
			String replication = run(List.of("redis-cli", "-p", String.valueOf(node.port()), "info", "replication"),
					node.directory());
			if (replication.contains("role:master") || replication.contains("master_link_status:up")) {
				return;
			}
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Cluster replica " + node.port() + " did not sync with its master");
			}
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for the cluster", ex);
			}
		}
	}

	private static String run(List<String> command, Path directory) {
		try {
			Process process = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
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

}
