package dev.distlock.redis;

import dev.distlock.core.spi.LockProvider;

/**
 * The model-based protocol test with {@code distributed-lock.redis.fencing=false}: plain exclusive locks taken by
 * {@code SET NX GET} and let go by the lean release, mixed in one run with every other kind, which keep their scripts
 * and fencing tokens; the fence retention passes halfway, as in {@link RedisProtocolModelTest}.
 */
class RedisLeanProtocolModelTest extends RedisProtocolModelTest {

	@Override
	protected LockProvider createProvider() {
		RedisLockSettings defaults = RedisLockSettings.defaults();
		return new RedisLockProvider(server.factory(),
				new RedisLockSettings(defaults.namespace(), defaults.pubSub(), fenceRetention()).withFencing(false));
	}

	@Override
	protected boolean fencingTokens() {
		return false;
	}

}
