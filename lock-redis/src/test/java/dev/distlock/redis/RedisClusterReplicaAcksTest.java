package dev.distlock.redis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.distlock.core.LockMode;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.redis.testsupport.RedisClusterProcess;
import dev.distlock.redis.testsupport.RedisServerProcess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Replica acks in a real cluster (three masters with a replica each): {@code WAIT} goes to the master of the key's
 * slot, over the connection the script went over. With one master's replica frozen (SIGSTOP: it sends no
 * acknowledgement), exactly the keys of that master's slots fail, and the others are granted. Skipped where
 * {@code redis-server} or {@code redis-cli} is not on PATH.
 */
class RedisClusterReplicaAcksTest {

	private static final OwnerDetails OWNER = new OwnerDetails("cluster-acks", "test-host");

	@Test
	void eachGrantWaitsForTheReplicaOfItsOwnMaster() throws Exception {
		Assumptions.assumeTrue(RedisClusterProcess.unavailableReason().isEmpty(),
				() -> "Cluster test skipped: " + RedisClusterProcess.unavailableReason().orElse(""));
		try (RedisClusterProcess cluster = RedisClusterProcess.start(3, 1)) {
			LettuceConnectionFactory factory = cluster.connectionFactory(Duration.ofSeconds(2));
			try (RedisLockProvider provider = new RedisLockProvider(factory,
					RedisLockSettings.defaults().withReplicaAcks(1))) {
				List<String> keys = new ArrayList<>();
				for (int i = 0; i < 30; i++) {
					keys.add("acked-" + i);
				}
				for (String key : keys) {
					assertThat(provider.tryAcquire(request(key, "first")).orElseThrow().release()).isTrue();
				}

				RedisServerProcess frozenMaster = cluster.masters().get(0);
				long replicaPid = pid(cluster.replicaOf(frozenMaster.port()).port());
				RedisClusterClient client = (RedisClusterClient) factory.getRequiredNativeClient();
				signal("STOP", replicaPid);
				try {
					int refused = 0;
					int expectedRefused = 0;
					for (String key : keys) {
						boolean onFrozen = client.getPartitions()
							.getMasterBySlot(SlotHash.getSlot("distlock:{" + key + "}"))
							.getUri()
							.getPort() == frozenMaster.port();
						expectedRefused += onFrozen ? 1 : 0;
						Throwable error = catchThrowable(() -> provider.tryAcquire(request(key, "second"))
							.ifPresent(Lease::release));
						if (error != null) {
							assertThat(error).isInstanceOf(LockStoreException.class)
								.hasMessageContaining("not acknowledged by 1 replica(s)");
							refused++;
						}
						assertThat(error != null).as("'%s' refused exactly when its master's replica is frozen", key)
							.isEqualTo(onFrozen);
					}
					assertThat(expectedRefused).isPositive();
					assertThat(refused).isEqualTo(expectedRefused);
				}
				finally {
					signal("CONT", replicaPid);
				}
			}
			finally {
				factory.destroy();
			}
		}
	}

	private static LockRequest request(String key, String token) {
		return new LockRequest(key, token, Duration.ofSeconds(1), LockMode.EXCLUSIVE, 1, OWNER);
	}

	private static long pid(int port) throws IOException, InterruptedException {
		for (String line : run("redis-cli", "-p", String.valueOf(port), "INFO", "server").split("\\R")) {
			if (line.startsWith("process_id:")) {
				return Long.parseLong(line.substring("process_id:".length()).strip());
			}
		}
		throw new IllegalStateException("No process_id for " + port);
	}

	private static void signal(String signal, long pid) throws IOException, InterruptedException {
		run("kill", "-" + signal, String.valueOf(pid));
	}

	private static String run(String... command) throws IOException, InterruptedException {
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
		return output;
	}

}
