package dev.distlock.autoconfigure.actuate;

import dev.distlock.core.LockHandle;

/**
 * What an observation of a held lock carries: the handle and its low-cardinality tags, chosen on the acquiring thread.
 */
public class LockObservationContext extends AbstractLockObservationContext {

	private final LockHandle handle;

	/**
	 * A context for the held lock.
	 * @param provider the provider's short name
	 * @param keyPrefix the key's tag value from {@link LockKeyTag}, or {@link LockKeyTag#NONE} for a
	 * {@code @DistributedLock} lock
	 * @param method {@code ClassName.methodName} of the {@code @DistributedLock} method that took the lock, or
	 * {@link LockKeyTag#NONE} for a {@code LockTemplate} call
	 */
	public LockObservationContext(LockHandle handle, String provider, String keyPrefix, String method) {
		super(provider, keyPrefix, method);
		this.handle = handle;
	}

	/**
	 * The held lock.
	 */
	public LockHandle getHandle() {
		return handle;
	}

}
