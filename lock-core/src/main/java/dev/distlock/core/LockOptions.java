package dev.distlock.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * How to take a lock: lease, retries, backoff, renewal and mode. Immutable; every value is checked at construction and
 * a bad one throws {@link InvalidLockOptionException} naming it.
 *
 * @param timeout the lease: how long the store keeps the lock without an extend, default 10 s; setting it on a
 * builder makes the lock expiring again (it clears {@link Builder#noExpiry()})
 * @param retries how many more attempts after the first, default 0
 * @param delay the wait before the first retry, default 50 ms
 * @param backoffMultiplier 1.0 keeps the delay fixed; above 1 grows it by this ratio per retry
 * @param maxDelay the cap on a grown delay, or null for the default cap, {@link #DEFAULT_MAX_DELAY} (1 s), or
 * {@code delay} if that is longer: a waiter that sleeps longer than a store keeps its place in the queue would lose
 * it to newcomers
 * @param maxWait the overall limit on waiting, whatever retries remain, or null for none
 * @param autoRenew whether a watchdog extends the lease every third of it while the lock is held
 * @param onFailure what a guarded call does when the lock cannot be had
 * @param mode exclusive or shared
 * @param maxConcurrent how many holders a shared lock admits; 1 for exclusive
 * @param holdAtLeast the minimum time the lock stays held after acquisition, even if released earlier, or null
 * @param owner owner details stored with the lock, or null for the template's
 * @param expires true (the default) for a lock with a lease; false for a lock kept until it is released by its
 * handle, by its lock ID or by force ({@link #noExpiry()}), on a provider with
 * {@link dev.distlock.core.spi.LockIdSupport}; {@code timeout} is then unused
 * @param name what the lock guards, as listeners (metrics, observations) report it instead of the key, such as
 * {@code OrderService.pay} for a {@code @DistributedLock} method; null to report the key's prefix
 */
public record LockOptions(Duration timeout, int retries, Duration delay, double backoffMultiplier,
		@Nullable Duration maxDelay, @Nullable Duration maxWait, boolean autoRenew, FailureMode onFailure, LockMode mode,
		int maxConcurrent, @Nullable Duration holdAtLeast, @Nullable OwnerDetails owner, boolean expires,
		@Nullable String name) {

	/** A shared lock's {@code maxConcurrent} for "no limit"; stored as {@link Integer#MAX_VALUE}. */
	public static final int UNLIMITED = -1;

	/** The shortest lease, extension, delay or wait accepted: below a millisecond a lease is useless and a wait spins. */
	public static final Duration MIN_DURATION = Duration.ofMillis(1);

	/** The longest lease, extension, delay or wait accepted, so that no store's arithmetic on it can overflow. */
	public static final Duration MAX_DURATION = Duration.ofDays(365);

	/**
	 * The cap on a grown retry delay when {@code maxDelay} is not set (unless {@code delay} itself is longer): below
	 * the 2 s for which a store keeps a waiter's place (a waiting mark, a queue entry) without a fresh attempt.
	 */
	public static final Duration DEFAULT_MAX_DELAY = Duration.ofSeconds(1);

	/** The largest backoff ratio accepted: beyond it the second retry delay would already dwarf any sensible wait. */
	public static final double MAX_BACKOFF_MULTIPLIER = 100.0;

	// The defaults, written once: builders start from them, and the starter's properties take theirs from here.
	private static final LockOptions DEFAULTS = new LockOptions(Duration.ofSeconds(10), 0, Duration.ofMillis(50), 1.0,
			null, null, false, FailureMode.THROW, LockMode.EXCLUSIVE, 1, null, null, true, null);

	/**
	 * Options with a lease (every option but {@code expires}).
	 */
	public LockOptions(Duration timeout, int retries, Duration delay, double backoffMultiplier,
			@Nullable Duration maxDelay, @Nullable Duration maxWait, boolean autoRenew, FailureMode onFailure,
			LockMode mode, int maxConcurrent, @Nullable Duration holdAtLeast, @Nullable OwnerDetails owner) {
		this(timeout, retries, delay, backoffMultiplier, maxDelay, maxWait, autoRenew, onFailure, mode, maxConcurrent,
				holdAtLeast, owner, true, null);
	}

	/**
	 * Checks every value; a shared {@code maxConcurrent} of {@link #UNLIMITED} becomes {@link Integer#MAX_VALUE}.
	 */
	public LockOptions {
		checkDuration("timeout", timeout);
		checkDuration("delay", delay);
		if (retries < 0) {
			throw new InvalidLockOptionException("retries", "must be 0 or more, was " + retries);
		}
		if (!(backoffMultiplier >= 1.0 && backoffMultiplier <= MAX_BACKOFF_MULTIPLIER)) {
			throw new InvalidLockOptionException("backoffMultiplier",
					"must be a number from 1.0 to " + MAX_BACKOFF_MULTIPLIER + ", was " + backoffMultiplier);
		}
		if (maxDelay != null) {
			checkDuration("maxDelay", maxDelay);
			if (maxDelay.compareTo(delay) < 0) {
				throw new InvalidLockOptionException("maxDelay",
						"must not be below delay (" + delay + "), was " + maxDelay);
			}
		}
		if (maxWait != null) {
			checkDuration("maxWait", maxWait);
		}
		if (holdAtLeast != null) {
			checkDuration("holdAtLeast", holdAtLeast);
			if (expires && holdAtLeast.compareTo(timeout) > 0) {
				throw new InvalidLockOptionException("holdAtLeast",
						"must not exceed timeout (" + timeout + "), was " + holdAtLeast);
			}
		}
		if (onFailure == null) {
			throw new InvalidLockOptionException("onFailure", "must not be null");
		}
		if (mode == null) {
			throw new InvalidLockOptionException("mode", "must not be null");
		}
		if (mode == LockMode.SHARED && maxConcurrent == UNLIMITED) {
			maxConcurrent = Integer.MAX_VALUE;
		}
		if (maxConcurrent < 1) {
			throw new InvalidLockOptionException("maxConcurrent",
					"must be 1 or more, or -1 for no limit, was " + maxConcurrent);
		}
		if (mode == LockMode.EXCLUSIVE && maxConcurrent != 1) {
			throw new InvalidLockOptionException("maxConcurrent",
					"applies to shared locks only; an exclusive lock has 1, was " + maxConcurrent);
		}
		if (!expires && autoRenew) {
			throw new InvalidLockOptionException("autoRenew",
					"cannot be combined with noExpiry: a lock without expiry has no lease to renew");
		}
	}

	/**
	 * The defaults, but the lock never expires: it is kept until released by its handle, by its lock ID
	 * ({@link dev.distlock.core.LockTemplate#unlock(String)}) or by force. An explicit opt-in for locks that must
	 * outlive the process that took them; a crashed holder's lock then stays until someone releases it.
	 */
	public static LockOptions noExpiry() {
		return builder().noExpiry().build();
	}

	/**
	 * The defaults, but shared by up to {@code maxConcurrent} holders ({@link #UNLIMITED}, -1, for no limit).
	 */
	public static LockOptions shared(int maxConcurrent) {
		return builder().shared(maxConcurrent).build();
	}

	/**
	 * The defaults: 10 s lease, no retries, 50 ms delay, fixed backoff (a grown one is capped at
	 * {@link #DEFAULT_MAX_DELAY}, 1 s), no overall wait limit, no renewal, exclusive, throw on failure, expiring.
	 */
	public static LockOptions defaults() {
		return DEFAULTS;
	}

	/**
	 * A builder starting from the defaults.
	 */
	public static Builder builder() {
		return new Builder(DEFAULTS);
	}

	/**
	 * A builder starting from these options.
	 */
	public Builder toBuilder() {
		return new Builder(this);
	}

	/**
	 * The retry delays as a Spring {@link BackOff}: fixed when the multiplier is 1, exponential above, capped by
	 * {@link #effectiveMaxDelay()}. Attempt counting and the overall wait limit stay with the caller.
	 */
	public BackOff backOff() {
		ExponentialBackOff backOff = new ExponentialBackOff(delay.toMillis(), backoffMultiplier);
		backOff.setMaxInterval(effectiveMaxDelay().toMillis());
		backOff.setMaxElapsedTime(Long.MAX_VALUE);
		return backOff;
	}

	/**
	 * The cap the backoff applies: {@code maxDelay} when set, else {@link #DEFAULT_MAX_DELAY} or {@code delay},
	 * whichever is longer.
	 */
	public Duration effectiveMaxDelay() {
		if (maxDelay != null) {
			return maxDelay;
		}
		return delay.compareTo(DEFAULT_MAX_DELAY) > 0 ? delay : DEFAULT_MAX_DELAY;
	}

	/**
	 * Checks a lease, extension, delay or wait: from {@link #MIN_DURATION} (1 ms) to {@link #MAX_DURATION} (365 days).
	 * @param option the option or property named in the error, such as {@code timeout} or {@code extend}
	 * @return the value
	 * @throws InvalidLockOptionException naming the option if the value is null or out of bounds
	 */
	public static Duration checkDuration(String option, @Nullable Duration value) {
		if (value == null) {
			throw new InvalidLockOptionException(option, "must not be null");
		}
		if (value.isNegative() || value.isZero()) {
			throw new InvalidLockOptionException(option, "must be positive, was " + value);
		}
		if (value.compareTo(MIN_DURATION) < 0) {
			throw new InvalidLockOptionException(option, "must be at least 1ms, was " + value);
		}
		if (value.compareTo(MAX_DURATION) > 0) {
			throw new InvalidLockOptionException(option, "must be at most 365 days (" + MAX_DURATION + "), was " + value);
		}
		return value;
	}

	/**
	 * Builds {@link LockOptions}, starting from the defaults or from given options; {@link #build()} hands the values
	 * to the record, which checks them all. Setters check nothing, so options can be set in any order.
	 */
	public static final class Builder {

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

		private Builder(LockOptions start) {
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

		/**
		 * Sets the lease. The lock expires then, also when the builder started from {@link LockOptions#noExpiry()}:
		 * a lease asked for is a lease kept.
		 */
		public Builder timeout(Duration timeout) {
			this.timeout = timeout;
			// A lease set on options without expiry would otherwise be silently ignored: asking for one means expiring.
			this.expires = true;
			return this;
		}

		/** Sets how many retries follow the first attempt. */
		public Builder retries(int retries) {
			this.retries = retries;
			return this;
		}

		/** Sets the first retry delay. */
		public Builder delay(Duration delay) {
			this.delay = delay;
			return this;
		}

		/** Sets the backoff ratio; 1.0 is fixed. */
		public Builder backoffMultiplier(double backoffMultiplier) {
			this.backoffMultiplier = backoffMultiplier;
			return this;
		}

		/** Caps the grown delay; null for the default cap ({@link LockOptions#effectiveMaxDelay()}). */
		public Builder maxDelay(@Nullable Duration maxDelay) {
			this.maxDelay = maxDelay;
			return this;
		}

		/** Limits the overall wait. */
		public Builder maxWait(@Nullable Duration maxWait) {
			this.maxWait = maxWait;
			return this;
		}

		/** Waits until the lock is free or {@code maxWait} has passed, retrying without a count limit. */
		public Builder waitUpTo(Duration maxWait) {
			this.maxWait = maxWait;
			this.retries = Integer.MAX_VALUE;
			return this;
		}

		/** Sets whether a watchdog renews the lease. */
		public Builder autoRenew(boolean autoRenew) {
			this.autoRenew = autoRenew;
			return this;
		}

		/** Sets what a guarded call does on failure. */
		public Builder onFailure(FailureMode onFailure) {
			this.onFailure = onFailure;
			return this;
		}

		/** Makes the lock exclusive (the default). */
		public Builder exclusive() {
			this.mode = LockMode.EXCLUSIVE;
			this.maxConcurrent = 1;
			return this;
		}

		/** Makes the lock shared by up to {@code maxConcurrent} holders; {@link #UNLIMITED} (-1) for no limit. */
		public Builder shared(int maxConcurrent) {
			this.mode = LockMode.SHARED;
			this.maxConcurrent = maxConcurrent;
			return this;
		}

		/** Sets the mode and the shared limit together. */
		public Builder mode(LockMode mode, int maxConcurrent) {
			this.mode = mode;
			this.maxConcurrent = maxConcurrent;
			return this;
		}

		/** Sets the minimum hold. */
		public Builder holdAtLeast(@Nullable Duration holdAtLeast) {
			this.holdAtLeast = holdAtLeast;
			return this;
		}

		/** Sets the name listeners report for the lock instead of its key, such as a method name. */
		public Builder name(@Nullable String name) {
			this.name = name;
			return this;
		}

		/** Sets the owner details stored with the lock. */
		public Builder owner(@Nullable OwnerDetails owner) {
			this.owner = owner;
			return this;
		}

		/**
		 * Makes the lock never expire (see {@link LockOptions#noExpiry()}); cannot be combined with autoRenew. A
		 * {@link #timeout(Duration)} set afterwards makes it expiring again.
		 */
		public Builder noExpiry() {
			this.expires = false;
			return this;
		}

		/** Validates and builds. */
		public LockOptions build() {
			return new LockOptions(timeout, retries, delay, backoffMultiplier, maxDelay, maxWait, autoRenew, onFailure,
					mode, maxConcurrent, holdAtLeast, owner, expires, name);
		}

	}

}
