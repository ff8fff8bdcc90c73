package dev.distlock.redis;

/**
 * The seams suite with {@code distributed-lock.redis.fencing=false}: every kind of lock through every disruption,
 * the plain ones taken by {@code SET NX GET} and let go by the lean release.
 */
class RedisLeanSeamsTest extends RedisSeamsTest {

	@Override
	protected RedisLockSettings settings() {
		return RedisLockSettings.defaults().withFencing(false);
	}

	@Override
	protected boolean fencingTokens() {
		return false;
	}

}
