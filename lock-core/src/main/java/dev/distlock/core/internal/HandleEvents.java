package dev.distlock.core.internal;

import java.time.Duration;

import dev.distlock.core.DistributedLockException;
import dev.distlock.core.LockLostException;

/**
 * What a {@link ManagedLockHandle} reports back to its template: for the held-lock registry and the listeners.
 */
public interface HandleEvents {

	/** The handle was released normally. */
	void released(ManagedLockHandle handle, Duration heldFor);

	/** The release failed; the handle is invalid. */
	void releaseFailed(ManagedLockHandle handle, DistributedLockException error);

	/** The watchdog renewed the lease. */
	void renewed(ManagedLockHandle handle);

	/** The lock was found lost. */
	void lost(ManagedLockHandle handle, LockLostException cause);

}
