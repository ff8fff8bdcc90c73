package dev.distlock.core;

import org.jspecify.annotations.Nullable;

/**
 * Work done while a lock is held. The handle gives the fencing token to pass to the guarded resource.
 */
@FunctionalInterface
public interface LockCallback<T extends @Nullable Object> {

	/**
	 * Runs with the lock held.
	 */
	T doInLock(LockHandle handle);

}
