package dev.distlock.redis;

import java.time.Duration;

import dev.distlock.core.InvalidLockOptionException;

/**
 * Settings of the Redis provider. Errors name the setting by its field name; the starter maps them to its
 * {@code distributed-lock.redis.*} properties.
 * @param namespace the prefix of every Redis key the provider writes, such as {@code distlock}
 * @param pubSub whether waiters subscribe to release notifications instead of only polling
 * @param fenceRetention how long a key's fencing counter outlives its last grant; never shorter than the lease it
 * serves. Within it, fencing tokens keep increasing even if the server clock steps back; after it, a new token comes
 * from the server clock alone
 * @param replicaAcks how many replicas must acknowledge each grant (Redis {@code WAIT}) before it is returned as
 * held; 0 returns grants at once, as asynchronous replication allows
 * @param fencing whether plain exclusive locks (no lock ID, with expiry, not shared, not in a group, though a
 * group across cluster slots is taken key by key as plain locks) get fencing tokens. Off, such a lock is taken by one
 * plain {@code SET NX GET PX} (Redis 7.0 or later) and released by a compare-and-delete without a replay record: its
 * fencing token is 0, the store keeps no holder details for it, and a release that finds the key gone answers from
 * the handle's own lease (see {@code docs/REDIS.md}, "Without fencing tokens"). A waiter whose plain attempt was
 * refused queues as with fencing on, and a lock handed to it carries a fencing token; every other kind of lock is
 * served as with fencing on
 */
public record RedisLockSettings(String namespace, boolean pubSub, Duration fenceRetention, int replicaAcks,
		boolean fencing) {

	/** The default fence retention: one day. */
	public static final Duration DEFAULT_FENCE_RETENTION = Duration.ofDays(1);

	/**
	 * Validates the namespace (non-blank, free of braces, which would move the cluster hash tag), the retention and
	 * the replica acknowledgements.
	 */
	public RedisLockSettings {
		if (namespace == null || namespace.isBlank()) {
			throw new InvalidLockOptionException("namespace", "must not be blank");
		}
		if (namespace.indexOf('{') >= 0 || namespace.indexOf('}') >= 0) {
			throw new InvalidLockOptionException("namespace",
					"must not contain '{' or '}' (they would change the cluster hash tag), was '" + namespace + "'");
		}
		if (fenceRetention == null || fenceRetention.compareTo(Duration.ofSeconds(1)) < 0
				|| fenceRetention.compareTo(Duration.ofDays(3650)) > 0) {
			throw new InvalidLockOptionException("fenceRetention",
					"must be between 1 s and 3650 days, was " + fenceRetention);
		}
		if (replicaAcks < 0) {
			throw new InvalidLockOptionException("replicaAcks", "must be 0 or more, was " + replicaAcks);
		}
	}

	/**
	 * Settings with fencing tokens.
	 */
	public RedisLockSettings(String namespace, boolean pubSub, Duration fenceRetention, int replicaAcks) {
		this(namespace, pubSub, fenceRetention, replicaAcks, true);
	}

	/**
	 * Settings without replica acknowledgement.
	 */
	public RedisLockSettings(String namespace, boolean pubSub, Duration fenceRetention) {
		this(namespace, pubSub, fenceRetention, 0);
	}

	/**
	 * Settings with the default fence retention.
	 */
	public RedisLockSettings(String namespace, boolean pubSub) {
		this(namespace, pubSub, DEFAULT_FENCE_RETENTION);
	}

	/**
	 * The defaults: namespace {@code distlock}, pub/sub on, fence retention one day, no replica acknowledgement,
	 * fencing tokens on. The starter's {@code distributed-lock.redis.*} properties start from these.
	 */
	public static RedisLockSettings defaults() {
		return new RedisLockSettings("distlock", true);
	}

	/**
	 * These settings with another number of replicas that must acknowledge each grant.
	 */
	public RedisLockSettings withReplicaAcks(int replicas) {
		return new RedisLockSettings(namespace, pubSub, fenceRetention, replicas, fencing);
	}

	/**
	 * These settings with fencing tokens on or off for plain exclusive locks.
	 */
	public RedisLockSettings withFencing(boolean on) {
		return new RedisLockSettings(namespace, pubSub, fenceRetention, replicaAcks, on);
	}

}
