package dev.distlock.autoconfigure.actuate;

import io.micrometer.observation.Observation;

import dev.distlock.core.LockHandle;

/**
 * What an observation of a held lock carries: the handle and its low-cardinality tags, chosen on the acquiring thread.
 */
public class LockObservationContext extends Observation.Context {

	private final LockHandle handle;

	private final String provider;

	private final String keyPrefix;

	private final String method;

	/**
	 * A context for the held lock.
	 * @param provider the provider's short name
	 * @param keyPrefix the key's tag value from {@link LockKeyTag}, or {@link LockKeyTag#NONE} for a
	 * {@code @DistributedLock} lock
	 * @param method {@code ClassName.methodName} of the {@code @DistributedLock} method that took the lock, or
	 * {@link LockKeyTag#NONE} for a {@code LockTemplate} call
	 */
	public LockObservationContext(LockHandle handle, String provider, String keyPrefix, String method) {
		this.handle = handle;
		this.provider = provider;
		this.keyPrefix = keyPrefix;
		this.method = method;
	}

	/**
	 * The held lock.
	 */
	public LockHandle getHandle() {
		return handle;
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
	 * The {@code @DistributedLock} method that took the lock, as {@code ClassName.methodName}, or {@code none}.
	 */
	public String getMethod() {
		return method;
	}

}
