package dev.distlock.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

import dev.distlock.redis.RedisLockSettings;

/**
 * The {@code distributed-lock.redis.*} properties, beside the auto-configuration that uses them. Each starts from
 * {@link RedisLockSettings#defaults()}, the only copy of the defaults; IDEs see them in
 * {@code META-INF/additional-spring-configuration-metadata.json}.
 */
@ConfigurationProperties("distributed-lock.redis")
public class RedisLockProperties {

	/**
	 * Prefix of every Redis key the provider writes.
	 */
	private String namespace = RedisLockSettings.defaults().namespace();

	/**
	 * Whether waiters subscribe to release notifications instead of only polling.
	 */
	private boolean pubSub = RedisLockSettings.defaults().pubSub();

	/**
	 * How long a key's fencing counter outlives its last grant (never less than the lease). Within it, fencing
	 * tokens keep increasing even if the Redis server's clock steps back; after it, the key leaves nothing behind
	 * and a new token comes from the server clock alone.
	 */
	private Duration fenceRetention = RedisLockSettings.defaults().fenceRetention();

	/**
	 * How many replicas must acknowledge each grant (Redis WAIT, bounded by the lease and the command timeout)
	 * before it counts as held; a grant not acknowledged in time is released and reported as a store error. 0
	 * returns grants at once, and a grant the master had not yet replicated can be lost in a failover.
	 */
	private int replicaAcks = RedisLockSettings.defaults().replicaAcks();

	/**
	 * Whether plain exclusive locks (no lock ID, with expiry, not shared, not in a group) get fencing tokens. Off,
	 * such a lock costs one plain SET NX GET (Redis 7.0 or later) and a two-command release: its fencing token is 0,
	 * status shows no owner or host for it, and a release that finds the key gone (as after a forced release) while
	 * the lease runs answers released. Waiters, hand-offs, writer priority and every other kind of lock are unchanged.
	 */
	private boolean fencing = RedisLockSettings.defaults().fencing();

	public String getNamespace() {
		return namespace;
	}

	public void setNamespace(String namespace) {
		this.namespace = namespace;
	}

	public boolean isPubSub() {
		return pubSub;
	}

	public void setPubSub(boolean pubSub) {
		this.pubSub = pubSub;
	}

	public Duration getFenceRetention() {
		return fenceRetention;
	}

	public void setFenceRetention(Duration fenceRetention) {
		this.fenceRetention = fenceRetention;
	}

	public int getReplicaAcks() {
		return replicaAcks;
	}

	public void setReplicaAcks(int replicaAcks) {
		this.replicaAcks = replicaAcks;
	}

	public boolean isFencing() {
		return fencing;
	}

	public void setFencing(boolean fencing) {
		this.fencing = fencing;
	}

}
