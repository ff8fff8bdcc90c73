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

}
