package dev.distlock.autoconfigure.actuate;

import java.time.Duration;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

import dev.distlock.core.LockAttempt;

/**
 * What an observation of one acquisition carries: what was asked for, its low-cardinality tags chosen on the
 * acquiring thread, and, once it ended, its outcome and attempts. The observation's duration is the wait.
 */
public class LockAcquireObservationContext extends Observation.Context {

	private final LockAttempt attempt;

	private final String provider;

	private final String keyPrefix;

	private final String method;

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
		this.attempt = attempt;
		this.provider = provider;
		this.keyPrefix = keyPrefix;
		this.method = method;
	}

	/**
	 * What was asked for: the key (a group's keys), the mode and the lock's name.
	 */
	public LockAttempt getAttempt() {
		return attempt;
	}

	/**
	 * The provider's short name, such as {@code redis}.
	 */
	public String getProvider() {
		return provider;
	}

	/**
	 * The key's low-cardinality tag value.
	 */
	public String getKeyPrefix() {
		return keyPrefix;
	}

	/**
	 * The {@code @DistributedLock} method, as {@code ClassName.methodName}, or {@code none}.
	 */
	public String getMethod() {
		return method;
	}

	/**
	 * How the acquisition ended; null while it runs.
	 */
	public LockAttempt.@Nullable Outcome getOutcome() {
		return outcome;
	}

	/**
	 * How many attempts it made; 0 while it runs.
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
