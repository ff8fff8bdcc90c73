package dev.distlock.autoconfigure.actuate;

import io.micrometer.observation.Observation;

import dev.distlock.core.LockHandle;

/**
 * What an observation of a held lock carries: the handle and its precomputed low-cardinality tags.
 */
public class LockObservationContext extends Observation.Context {

	private final LockHandle handle;

	private final String provider;

	private final String keyPrefix;

	/**
	 * A context for the held lock.
	 * @param provider the provider's short name
	 * @param keyPrefix the key's tag value from {@link LockKeyTag}
	 */
	public LockObservationContext(LockHandle handle, String provider, String keyPrefix) {
		this.handle = handle;
		this.provider = provider;
		this.keyPrefix = keyPrefix;
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

}
