package dev.distlock.redis;

/**
 * With {@code distributed-lock.redis.fencing=false} a plain exclusive lock is one {@code SET NX GET} and a lean
 * release: the whole contract kit must hold on that path too, its token checks expecting 0 for plain grants.
 */
class RedisLeanLockProviderContractTest extends RedisLockProviderContractTest {

	@Override
	protected RedisLockSettings settings() {
		return RedisLockSettings.defaults().withFencing(false);
	}

	@Override
	public boolean fencingTokens() {
		return false;
	}

}
