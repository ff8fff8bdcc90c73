package dev.distlock.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * The {@link LockOptions.Builder}: mutable fields copied from the options it starts from (the defaults, or the options
 * of {@link LockOptions#toBuilder()}); {@link #build()} hands them to the record, which checks them all.
 */
final class DefaultLockOptionsBuilder implements LockOptions.Builder {

	private Duration timeout;

	private int retries;

	private Duration delay;

	private double backoffMultiplier;

	private @Nullable Duration maxDelay;

	private @Nullable Duration maxWait;

	private boolean autoRenew;

	private FailureMode onFailure;

	private LockMode mode;

	private int maxConcurrent;

	private @Nullable Duration holdAtLeast;

	private @Nullable OwnerDetails owner;

	private boolean expires;

	private @Nullable String name;

	DefaultLockOptionsBuilder(LockOptions start) {
		this.timeout = start.timeout();
		this.retries = start.retries();
		this.delay = start.delay();
		this.backoffMultiplier = start.backoffMultiplier();
		this.maxDelay = start.maxDelay();
		this.maxWait = start.maxWait();
		this.autoRenew = start.autoRenew();
		this.onFailure = start.onFailure();
		this.mode = start.mode();
		this.maxConcurrent = start.maxConcurrent();
		this.holdAtLeast = start.holdAtLeast();
		this.owner = start.owner();
		this.expires = start.expires();
		this.name = start.name();
	}

	@Override
	public LockOptions.Builder timeout(Duration timeout) {
		this.timeout = timeout;
		// A lease set on options without expiry would otherwise be silently ignored: asking for one means expiring.
		this.expires = true;
		return this;
	}

	@Override
	public LockOptions.Builder retries(int retries) {
		this.retries = retries;
		return this;
	}

	@Override
	public LockOptions.Builder delay(Duration delay) {
		this.delay = delay;
		return this;
	}

	@Override
	public LockOptions.Builder backoffMultiplier(double backoffMultiplier) {
		this.backoffMultiplier = backoffMultiplier;
		return this;
	}

	@Override
	public LockOptions.Builder maxDelay(@Nullable Duration maxDelay) {
		this.maxDelay = maxDelay;
		return this;
	}

	@Override
	public LockOptions.Builder maxWait(@Nullable Duration maxWait) {
		this.maxWait = maxWait;
		return this;
	}

	@Override
	public LockOptions.Builder waitUpTo(Duration maxWait) {
		this.maxWait = maxWait;
		this.retries = Integer.MAX_VALUE;
		return this;
	}

	@Override
	public LockOptions.Builder autoRenew(boolean autoRenew) {
		this.autoRenew = autoRenew;
		return this;
	}

	@Override
	public LockOptions.Builder onFailure(FailureMode onFailure) {
		this.onFailure = onFailure;
		return this;
	}

	@Override
	public LockOptions.Builder exclusive() {
		this.mode = LockMode.EXCLUSIVE;
		this.maxConcurrent = 1;
		return this;
	}

	@Override
	public LockOptions.Builder shared(int maxConcurrent) {
		this.mode = LockMode.SHARED;
		this.maxConcurrent = maxConcurrent;
		return this;
	}

	@Override
	public LockOptions.Builder mode(LockMode mode, int maxConcurrent) {
		this.mode = mode;
		this.maxConcurrent = maxConcurrent;
		return this;
	}

	@Override
	public LockOptions.Builder holdAtLeast(@Nullable Duration holdAtLeast) {
		this.holdAtLeast = holdAtLeast;
		return this;
	}

	@Override
	public LockOptions.Builder name(@Nullable String name) {
		this.name = name;
		return this;
	}

	@Override
	public LockOptions.Builder owner(@Nullable OwnerDetails owner) {
		this.owner = owner;
		return this;
	}

	@Override
	public LockOptions.Builder noExpiry() {
		this.expires = false;
		return this;
	}

	@Override
	public LockOptions build() {
		return new LockOptions(timeout, retries, delay, backoffMultiplier, maxDelay, maxWait, autoRenew, onFailure, mode,
				maxConcurrent, holdAtLeast, owner, expires, name);
	}

}
