package dev.distlock.redis;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.testkit.StoreProtocolModelTest;
import dev.distlock.core.testkit.StoreRecords;
import dev.distlock.redis.testsupport.RedisServerExtension;

/**
 * The model-based protocol test on a private redis-server: two providers on one connection factory stand for two
 * instances, and the leftover check reads every key's {@code PTTL} ({@link RedisStoreRecords}).
 */
class RedisProtocolModelTest extends StoreProtocolModelTest {

	@RegisterExtension
	static final RedisServerExtension server = new RedisServerExtension();

	@Override
	protected LockProvider createProvider() {
		return new RedisLockProvider(server.factory(), RedisLockSettings.defaults());
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
