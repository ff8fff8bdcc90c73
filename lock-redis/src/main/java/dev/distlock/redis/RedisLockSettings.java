package dev.distlock.redis;

/**
 * Settings of the Redis provider.
 * @param namespace the prefix of every Redis key the provider writes, such as {@code distlock}
 * @param pubSub whether waiters subscribe to release notifications instead of only polling
 */
public record RedisLockSettings(String namespace, boolean pubSub) {

	/**
	 * Namespace {@code distlock}, pub/sub on.
	 */
	public static RedisLockSettings defaults() {
		return new RedisLockSettings("distlock", true);
	}

}
