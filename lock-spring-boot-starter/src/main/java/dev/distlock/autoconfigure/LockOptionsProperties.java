package dev.distlock.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.FailureMode;
import dev.distlock.core.LockOptions;

/**
 * The {@code distributed-lock.*} properties that set the default {@link LockOptions}: lease, retries, backoff, renewal
 * and failure mode. Each starts from {@link LockOptions#defaults()}, so the core holds the only copy of the defaults;
 * {@code META-INF/additional-spring-configuration-metadata.json} shows them to IDEs, as the configuration processor
 * reads only literal field initialisers.
 */
public abstract class LockOptionsProperties {

	/**
	 * Lease of a lock: how long the store keeps it without a renewal.
	 */
	private Duration timeout = LockOptions.defaults().timeout();

	/**
	 * How many more attempts follow the first when the lock is held.
	 */
	private int retries = LockOptions.defaults().retries();

	/**
	 * Wait before the first retry.
	 */
	private Duration delay = LockOptions.defaults().delay();

	/**
	 * Ratio by which the retry delay grows; 1.0 keeps it fixed.
	 */
	private double backoffMultiplier = LockOptions.defaults().backoffMultiplier();

	/**
	 * Cap on a grown retry delay; when unset, 1s (or the delay, if longer), so a long waiter keeps its place.
	 */
	private @Nullable Duration maxDelay = LockOptions.defaults().maxDelay();

	/**
	 * Overall limit on waiting for a lock, whatever retries remain; none when unset.
	 */
	private @Nullable Duration maxWait = LockOptions.defaults().maxWait();

	/**
	 * Whether a watchdog renews the lease every third of it while the lock is held.
	 */
	private boolean autoRenew = LockOptions.defaults().autoRenew();

	/**
	 * What a locked method does when the lock cannot be had: throw or skip.
	 */
	private FailureMode onFailure = LockOptions.defaults().onFailure();

	public Duration getTimeout() {
		return timeout;
	}

	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

	public int getRetries() {
		return retries;
	}

	public void setRetries(int retries) {
		this.retries = retries;
	}

	public Duration getDelay() {
		return delay;
	}

	public void setDelay(Duration delay) {
		this.delay = delay;
	}

	public double getBackoffMultiplier() {
		return backoffMultiplier;
	}

	public void setBackoffMultiplier(double backoffMultiplier) {
		this.backoffMultiplier = backoffMultiplier;
	}

	public @Nullable Duration getMaxDelay() {
		return maxDelay;
	}

	public void setMaxDelay(@Nullable Duration maxDelay) {
		this.maxDelay = maxDelay;
	}

	public @Nullable Duration getMaxWait() {
		return maxWait;
	}

	public void setMaxWait(@Nullable Duration maxWait) {
		this.maxWait = maxWait;
	}

	public boolean isAutoRenew() {
		return autoRenew;
	}

	public void setAutoRenew(boolean autoRenew) {
		this.autoRenew = autoRenew;
	}

	public FailureMode getOnFailure() {
		return onFailure;
	}

	public void setOnFailure(FailureMode onFailure) {
		this.onFailure = onFailure;
	}

}
