package dev.distlock.redis;

import java.time.Duration;
import java.util.List;

import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.distlock.core.LockGroup;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockMode;
import dev.distlock.core.LockOperations;
import dev.distlock.core.LockOptions;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.StatusQuery;
import dev.distlock.test.kit.LockProviderContractTest;
import dev.distlock.redis.testsupport.RedisClusterProcess;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole contract kit against a real three-master Redis Cluster, through {@code RedisClusterConfiguration}.
 * Skipped where {@code redis-server} or {@code redis-cli} is not on PATH.
 */
class RedisClusterContractTest extends LockProviderContractTest {

	private static RedisClusterProcess cluster;

	private static LettuceConnectionFactory factory;

	@BeforeAll
	static void startCluster() {
		Assumptions.assumeTrue(RedisClusterProcess.unavailableReason().isEmpty(),
				() -> "Cluster test skipped: " + RedisClusterProcess.unavailableReason().orElse(""));
		cluster = RedisClusterProcess.start(3);
		factory = cluster.connectionFactory(Duration.ofSeconds(2));
		// Open the node connections and load the scripts on every master before the timed tests run.
		try (RedisLockProvider warmUp = new RedisLockProvider(factory, RedisLockSettings.defaults())) {
			for (int i = 0; i < 12; i++) {
				warmUp.tryAcquire(new LockRequest("warm-up-" + i, "w", Duration.ofSeconds(5), LockMode.EXCLUSIVE, 1,
						OWNER)).orElseThrow().release();
			}
		}
	}

	@AfterAll
	static void stopCluster() {
		if (factory != null) {
			factory.destroy();
		}
		if (cluster != null) {
			cluster.close();
		}
	}

	@Override
	protected LockProvider createProvider() {
		RedisLockProvider provider = new RedisLockProvider(factory, RedisLockSettings.defaults());
		// Each provider opens its own script connection (topology and node connections) on first use; do it here, so
		// a test's second template does not spend its timing window connecting.
		for (int i = 0; i < 6; i++) {
			provider.tryAcquire(new LockRequest("warm-up-" + i, "w", Duration.ofSeconds(5), LockMode.EXCLUSIVE, 1,
					OWNER)).orElseThrow().release();
		}
		return provider;
	}

	@Override
	protected void destroyProvider(LockProvider provider) {
		((RedisLockProvider) provider).close();
	}

	@Test
	void groupsWorkAcrossSlotsAndWithinOneHashTagSlot() {
		List<String> spread = List.of("a", "b", "c", "d");
		assertThat(spread.stream().map(key -> SlotHash.getSlot("distlock:{" + prefix + key + "}")).distinct().count())
			.isGreaterThan(1);
		LockGroup acrossSlots = template.acquireAll(spread, lease(LONG));
		assertThat(acrossSlots.handles()).hasSize(4);
		acrossSlots.release();

		LockGroup oneSlot = template.acquireAll(List.of("{tag}x", "{tag}y"), LockOptions.builder().timeout(LONG).build());
		// One script, one server TIME: both fresh keys get the same microsecond token.
		long first = oneSlot.handles().get(0).fencingToken();
		assertThat(first).isGreaterThan(1_000_000_000_000_000L);
		assertThat(oneSlot.handles().get(1).fencingToken()).isEqualTo(first);
		assertThat(newTemplate().tryAcquire("{tag}y", lease(LONG))).isEmpty();
		oneSlot.release();
	}

	@Test
	void statusReadsLocksOfEverySlotOnEveryMasterAndStopsAtTheLimit() {
		List<String> keys = new java.util.ArrayList<>();
		for (int i = 0; i < 60; i++) {
			keys.add("many-" + i);
		}
		List<LockHandle> handles = keys.stream().map(key -> template.acquire(key, lease(LONG))).toList();
		assertThat(handles.stream().map(h -> SlotHash.getSlot("distlock:{" + h.key() + "}") * 3 / SlotHash.SLOT_COUNT)
			.distinct()
			.count()).as("keys on all three masters").isEqualTo(3);

		List<LockInfo> infos = new LockOperations(template).status(StatusQuery.held().withKeyPrefix(prefix + "many-"));
		assertThat(infos).extracting(LockInfo::key)
			.containsExactlyInAnyOrderElementsOf(handles.stream().map(LockHandle::key).toList())
			.isSorted();
		assertThat(infos).extracting(LockInfo::fencingToken)
			.containsExactlyInAnyOrderElementsOf(handles.stream().map(LockHandle::fencingToken).toList());
		assertThat(new LockOperations(template).status(StatusQuery.held().withKeyPrefix(prefix + "many-").withLimit(7))).hasSize(7);
		handles.forEach(LockHandle::release);
		assertThat(new LockOperations(template).status(StatusQuery.held().withKeyPrefix(prefix + "many-"))).isEmpty();
	}

}
