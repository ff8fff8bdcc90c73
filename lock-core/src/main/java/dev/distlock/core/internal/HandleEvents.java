package dev.distlock.core.internal;

import java.time.Duration;

import dev.distlock.core.DistributedLockException;
import dev.distlock.core.LockLostException;

/**
 * What a {@link LeaseHandle} reports back to its template: for the held-lock registry and the listeners.
 */
public interface HandleEvents {

	/** The handle was released normally. */
	void released(LeaseHandle handle, Duration heldFor);

	/** The release failed; the handle is invalid. */
	void releaseFailed(LeaseHandle handle, DistributedLockException error);

	/** The watchdog renewed the lease. */
	void renewed(LeaseHandle handle);

	/** The lock was found lost. */
	void lost(LeaseHandle handle, LockLostException cause);

}
