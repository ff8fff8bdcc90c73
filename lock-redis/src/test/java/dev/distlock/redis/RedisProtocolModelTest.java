package dev.distlock.redis;

import java.time.Duration;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.test.kit.StoreProtocolModelTest;
import dev.distlock.test.kit.StoreRecords;
import dev.distlock.redis.testsupport.RedisServerExtension;

/**
 * The model-based protocol test on a private redis-server: two providers on one connection factory stand for two
 * instances, and the leftover check reads every key's {@code PTTL} ({@link RedisStoreRecords}). The fence retention is
 * the shortest allowed, 1 s, so fence hashes expire under held locks and between grants during a run.
 */
class RedisProtocolModelTest extends StoreProtocolModelTest {

	@RegisterExtension
	static final RedisServerExtension server = new RedisServerExtension();

	private static final Duration FENCE_RETENTION = Duration.ofSeconds(1);

	@Override
	protected LockProvider createProvider() {
		RedisLockSettings defaults = RedisLockSettings.defaults();
		return new RedisLockProvider(server.factory(),
				new RedisLockSettings(defaults.namespace(), defaults.pubSub(), FENCE_RETENTION));
	}

	@Override
	protected Duration fenceRetention() {
		return FENCE_RETENTION;
	}

	@Override
	protected void destroyProvider(LockProvider provider) {
		((RedisLockProvider) provider).close();
	}

	@Override
	protected StoreRecords storeRecords() {
		return new RedisStoreRecords(server.factory());
	}

}
