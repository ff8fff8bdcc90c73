package dev.distlock.core.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;


/**
 * A lock store. One call makes one attempt; it never waits for a holder to leave.
 *
 * <p>Implementations throw {@link dev.distlock.core.LockStoreException} when the store cannot be reached, so callers
 * can tell "held by someone else" (an empty result) from "could not ask".
 */
public interface LockProvider {

	/**
	 * Makes one attempt to take the lock described by the request.
	 * @return the lease if this caller now holds the lock, empty if it is held by others
	 */
	Optional<Lease> tryAcquire(LockRequest request);

	/**
	 * Whether anyone holds the key now, exclusively or shared. Takes no lock.
	 */
	boolean isLocked(String key);

	/**
	 * Makes one attempt to take every lock of a group, all or nothing. The requests arrive sorted by key, so two
	 * groups that overlap always lock in the same order and cannot deadlock. The default acquires one key after the
	 * other and rolls back on the first refusal; a store that can do it in one atomic step overrides this.
	 * @return the leases in request order, or empty if any key was held (and then none is left locked)
	 */
	default Optional<List<Lease>> tryAcquireAll(List<LockRequest> requests) {
		List<Lease> taken = new ArrayList<>(requests.size());
		try {
			for (LockRequest request : requests) {
				Optional<Lease> lease = tryAcquire(request);
				if (lease.isEmpty()) {
					releaseQuietly(taken);
					return Optional.empty();
				}
				taken.add(lease.get());
			}
			return Optional.of(List.copyOf(taken));
		}
		catch (RuntimeException ex) {
			releaseQuietly(taken);
			throw ex;
		}
	}

	/**
	 * A short name for logs, metrics and the actuator endpoint, such as {@code redis}.
	 */
	default String name() {
		return getClass().getSimpleName();
	}

	private static void releaseQuietly(List<Lease> leases) {
		for (Lease lease : leases) {
			try {
				// A rollback is clean-up: the caller's interrupt must not leave the taken members held.
				Interrupts.uninterruptibly(lease::release);
			}
			catch (RuntimeException ignored) {
				// Best effort: the lease expires on its own if the store is unreachable.
			}
		}
	}

}
