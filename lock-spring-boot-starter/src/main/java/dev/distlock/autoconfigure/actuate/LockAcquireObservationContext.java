package dev.distlock.autoconfigure.actuate;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.LockAttempt;

/**
 * What an observation of one acquisition carries: what was asked for, its low-cardinality tags chosen on the
 * acquiring thread, and, once it ended, its outcome and attempts. The observation's duration is the wait.
 */
public class LockAcquireObservationContext extends AbstractLockObservationContext {

	private final LockAttempt attempt;

	private LockAttempt.@Nullable Outcome outcome;

	private int attempts;

	private Duration waited = Duration.ZERO;

	/**
	 * A context for an acquisition that starts now.
	 * @param provider the provider's short name
	 * @param keyPrefix the key's tag value from {@link LockKeyTag}, or {@link LockKeyTag#NONE} for a
	 * {@code @DistributedLock} lock
	 * @param method {@code ClassName.methodName} of the {@code @DistributedLock} method, or {@link LockKeyTag#NONE}
	 * for a {@code LockTemplate} call
	 */
	public LockAcquireObservationContext(LockAttempt attempt, String provider, String keyPrefix, String method) {
		super(provider, keyPrefix, method);
		this.attempt = attempt;
	}

	/**
	 * What was asked for: the key (a group's keys), the mode and the lock's name.
	 */
	public LockAttempt getAttempt() {
		return attempt;
	}

	/**
	 * How the acquisition ended; null while it runs.
	 */
	public LockAttempt.@Nullable Outcome getOutcome() {
		return outcome;
	}

	/**
	 * How many attempts it made (the first and the retries, not those that only kept a waiter's place); 0 while it
	 * runs.
	 */
	public int getAttempts() {
		return attempts;
	}

	/**
	 * How long it took by the template's clock, the same wait the observation times; zero while it runs.
	 */
	public Duration getWaited() {
		return waited;
	}

	/**
	 * Records how the acquisition ended, before the observation stops.
	 */
	void ended(LockAttempt.Outcome outcome, int attempts, Duration waited) {
		this.outcome = outcome;
		this.attempts = attempts;
		this.waited = waited;
	}

}
