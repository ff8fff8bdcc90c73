package dev.distlock.redis;

import dev.distlock.core.InvalidLockOptionException;

/**
 * Settings of the Redis provider.
 * @param namespace the prefix of every Redis key the provider writes, such as {@code distlock}
 * @param pubSub whether waiters subscribe to release notifications instead of only polling
 */
public record RedisLockSettings(String namespace, boolean pubSub) {

	/**
	 * Validates the namespace: it must be non-blank and free of braces, which would move the cluster hash tag.
	 */
	public RedisLockSettings {
		if (namespace == null || namespace.isBlank()) {
			throw new InvalidLockOptionException("distributed-lock.redis.namespace", "must not be blank");
		}
		if (namespace.indexOf('{') >= 0 || namespace.indexOf('}') >= 0) {
			throw new InvalidLockOptionException("distributed-lock.redis.namespace",
					"must not contain '{' or '}' (they would change the cluster hash tag), was '" + namespace + "'");
		}
	}

	/**
	 * Namespace {@code distlock}, pub/sub on.
	 */
	public static RedisLockSettings defaults() {
		return new RedisLockSettings("distlock", true);
	}

}
