package dev.distlock.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * The properties the database stores share ({@code distributed-lock.jdbc.*}, {@code distributed-lock.mongo.*}): how
 * often and how long after expiry their records are purged, and how long one lock call may take. Each store's
 * subclass starts them from its settings' defaults, the only copy of the defaults.
 */
public abstract class DatabaseLockProperties {

	/**
	 * How often the records of expired and released locks are purged; never when unset.
	 */
	private @Nullable Duration purgeInterval;

	/**
	 * How long a lock must have been expired or released before its record is purged.
	 */
	private Duration purgeGrace;

	/**
	 * The longest any lock call may take, however long its lease; each call also ends with the lease it serves.
	 */
	private Duration callTimeout;

	DatabaseLockProperties(@Nullable Duration purgeInterval, Duration purgeGrace, Duration callTimeout) {
		this.purgeInterval = purgeInterval;
		this.purgeGrace = purgeGrace;
		this.callTimeout = callTimeout;
	}

	public @Nullable Duration getPurgeInterval() {
		return purgeInterval;
	}

	public void setPurgeInterval(@Nullable Duration purgeInterval) {
		this.purgeInterval = purgeInterval;
	}

	public Duration getPurgeGrace() {
		return purgeGrace;
	}

	public void setPurgeGrace(Duration purgeGrace) {
		this.purgeGrace = purgeGrace;
	}

	public Duration getCallTimeout() {
		return callTimeout;
	}

	public void setCallTimeout(Duration callTimeout) {
		this.callTimeout = callTimeout;
	}

}
