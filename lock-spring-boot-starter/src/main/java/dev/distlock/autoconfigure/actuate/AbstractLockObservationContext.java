package dev.distlock.autoconfigure.actuate;

import io.micrometer.observation.Observation;

/**
 * What every lock observation carries: its low-cardinality tags, chosen on the acquiring thread. Extended by the
 * context of an acquisition ({@link LockAcquireObservationContext}) and of a held lock
 * ({@link LockObservationContext}).
 */
public abstract class AbstractLockObservationContext extends Observation.Context {

	private final String provider;

	private final String keyPrefix;

	private final String method;

	/**
	 * A context with its tags.
	 * @param provider the provider's short name
	 * @param keyPrefix the key's tag value from {@link LockKeyTag}, or {@link LockKeyTag#NONE} for a
	 * {@code @DistributedLock} lock
	 * @param method {@code ClassName.methodName} of the {@code @DistributedLock} method, or {@link LockKeyTag#NONE}
	 * for a {@code LockTemplate} call
	 */
	protected AbstractLockObservationContext(String provider, String keyPrefix, String method) {
		this.provider = provider;
		this.keyPrefix = keyPrefix;
		this.method = method;
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

}
