package dev.distlock.benchmarks;

import java.util.ArrayList;
import java.util.List;

import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

import dev.distlock.benchmarks.harness.LockArm;
import dev.distlock.benchmarks.redis.DistlockProviderArm;
import dev.distlock.benchmarks.redis.DistlockRedisArm;
import dev.distlock.benchmarks.redis.IntegrationRegistryArm;
import dev.distlock.benchmarks.redis.LettuceFloorArm;
import dev.distlock.benchmarks.redis.BenchmarkRedisServer;
import dev.distlock.benchmarks.redis.ReleasedKeyMemory;
import dev.distlock.benchmarks.redis.ScriptCost;
import dev.distlock.benchmarks.redis.RedisStats;
import dev.distlock.benchmarks.redis.RedissonArm;
import dev.distlock.benchmarks.redis.StatusCost;

/**
 * Every Redis arm, one after the other, on one redis-server of our own, emptied between arms.
 */
final class RedisSuite {

	private RedisSuite() {
	}

	/**
	 * What the suite measured.
	 * @param version the Redis server version
	 * @param floor the raw Lettuce arm
	 * @param distlock distlock without auto-renew
	 * @param distlockRenewing distlock with auto-renew
	 * @param all every arm, floor first
	 * @param statusCost status(HELD) over released keys against one SCAN pass
	 * @param releasedKeys what released keys leave in Redis, within and after the fence retention
	 * @param scriptCost Redis time per uncontended cycle, floor against distlock's scripts
	 */
	record Results(String version, ArmResult floor, ArmResult distlock, ArmResult distlockRenewing,
			List<ArmResult> all, StatusCost.Result statusCost, ReleasedKeyMemory.Result releasedKeys,
			ScriptCost.Result scriptCost) {
	}

	static Results run(Settings settings) {
		Progress.say("Redis arms");
		try (BenchmarkRedisServer server = BenchmarkRedisServer.start();
				RedisStats stats = new RedisStats("redis://127.0.0.1:" + server.port())) {
			String uri = "redis://127.0.0.1:" + server.port();
			int port = server.port();
			List<LockArm> arms = new ArrayList<>(List.of(new LettuceFloorArm(uri), new DistlockRedisArm(port, false),
					new DistlockRedisArm(port, true), new DistlockProviderArm(port),
					new DistlockRedisArm(port, false, false), new DistlockProviderArm(port, false)));
			if (settings.peers()) {
				arms.addAll(List.of(new RedissonArm(uri, false), new RedissonArm(uri, true),
						new IntegrationRegistryArm(port, RedisLockType.SPIN_LOCK, false),
						new IntegrationRegistryArm(port, RedisLockType.PUB_SUB_LOCK, false),
						new IntegrationRegistryArm(port, RedisLockType.PUB_SUB_LOCK, true)));
			}
			List<ArmResult> all = new SuiteRunner(settings, stats, stats::usedMemory, stats::flushAll)
				.run(arms);
			Progress.say("Redis status cost");
			StatusCost.Result statusCost = StatusCost.measure(port, stats);
			Progress.say("Redis memory per released key");
			ReleasedKeyMemory.Result releasedKeys = ReleasedKeyMemory.measure(port, stats);
			Progress.say("Redis time per uncontended cycle");
			ScriptCost.Result scriptCost = ScriptCost.measure(port, stats);
			return new Results(stats.version(), all.get(0), all.get(1), all.get(2), all, statusCost, releasedKeys,
					scriptCost);
		}
	}

}
