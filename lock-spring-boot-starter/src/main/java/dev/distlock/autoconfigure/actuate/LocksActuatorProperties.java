package dev.distlock.autoconfigure.actuate;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

import dev.distlock.core.InvalidLockOptionException;

/**
 * The {@code distributed-lock.actuator.*} properties: the locks endpoint and the health check.
 */
@ConfigurationProperties("distributed-lock.actuator")
public class LocksActuatorProperties {

	/**
	 * Whether the locks endpoint offers DELETE /actuator/locks/{key}, which removes a lock whoever holds it. Dangerous:
	 * a live holder keeps running without its lock, and only fencing tokens still protect the resource.
	 */
	private boolean forceReleaseEnabled = false;

	/**
	 * Most store locks the locks endpoint lists per request; the response counts all that matched.
	 */
	private int statusLimit = 100;

	/**
	 * How long the health check waits for the lock store's ping before reporting it down.
	 */
	private Duration healthTimeout = Duration.ofSeconds(2);

	public boolean isForceReleaseEnabled() {
		return forceReleaseEnabled;
	}

	public void setForceReleaseEnabled(boolean forceReleaseEnabled) {
		this.forceReleaseEnabled = forceReleaseEnabled;
	}

	public int getStatusLimit() {
		return statusLimit;
	}

	public void setStatusLimit(int statusLimit) {
		this.statusLimit = statusLimit;
	}

	public Duration getHealthTimeout() {
		return healthTimeout;
	}

	public void setHealthTimeout(Duration healthTimeout) {
		this.healthTimeout = healthTimeout;
	}

	/**
	 * The status limit, checked.
	 * @throws InvalidLockOptionException naming the property if it is not positive
	 */
	int checkedStatusLimit() {
		if (statusLimit < 1) {
			throw new InvalidLockOptionException("distributed-lock.actuator.status-limit",
					"must be at least 1, was " + statusLimit);
		}
		return statusLimit;
	}

	/**
	 * The health timeout, checked.
	 * @throws InvalidLockOptionException naming the property if it is not positive
	 */
	Duration checkedHealthTimeout() {
		if (healthTimeout.isNegative() || healthTimeout.isZero()) {
			throw new InvalidLockOptionException("distributed-lock.actuator.health-timeout",
					"must be positive, was " + healthTimeout);
		}
		return healthTimeout;
	}

}
