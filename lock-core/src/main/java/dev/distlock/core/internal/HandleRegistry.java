package dev.distlock.core.internal;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.distlock.core.DistributedLockException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockLostException;
import dev.distlock.core.LockOptions;
import dev.distlock.core.spi.Interrupts;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockRequest;

/**
 * The handles one template has handed out and not yet seen released or lost, with the watchdog that renews them and
 * the listeners that hear about them. Each {@link LeaseHandle} reports back here: released, release failed, renewed,
 * lost.
 */
public final class HandleRegistry implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(HandleRegistry.class);

	private static final int PRUNE_EVERY = 256;

	/** No listener registered: events cost nothing (no fan-out, no closure per event). */
	private static final LockListener NO_LISTENERS = new LockListener() {
	};

	private final Set<LeaseHandle> held = ConcurrentHashMap.newKeySet();

	private final LockListener listeners;

	private final Watchdog watchdog;

	private final StoreErrors store;

	private final LongSupplier nanoClock;

	private final Duration holderCheckInterval;

	/**
	 * A registry reporting to the listeners, renewing with a {@link Watchdog} that sweeps its held handles (on the
	 * scheduler and renewal executor given, or its own when null; closed with the registry), and checking locks without
	 * expiry every {@code holderCheckInterval}.
	 */
	public HandleRegistry(List<LockListener> listeners, @Nullable ScheduledExecutorService scheduler,
			@Nullable Executor renewalExecutor, StoreErrors store, LongSupplier nanoClock, Duration holderCheckInterval) {
		this.holderCheckInterval = holderCheckInterval;
		this.listeners = listeners.isEmpty() ? NO_LISTENERS : new Listeners(listeners);
		this.watchdog = new Watchdog(held, scheduler, renewalExecutor);
		this.store = store;
		this.nanoClock = nanoClock;
	}

	/**
	 * Wraps a granted lease in a handle, registers it, starts renewal if asked, and reports the acquisition.
	 * @param attemptNanos when the successful attempt was sent
	 * @param waitedNanos how long the caller waited for it
	 */
	public LeaseHandle register(LockRequest request, Lease lease, LockOptions options, @Nullable String groupId,
			long attemptNanos, long waitedNanos) {
		LeaseHandle handle = new LeaseHandle(request, lease, options, groupId, waitedNanos, attemptNanos, store, this);
		// About once per PRUNE_EVERY registrations, without a counter shared by every acquiring thread.
		if (ThreadLocalRandom.current().nextInt(PRUNE_EVERY) == 0) {
			pruneRunOut();
		}
		held.add(handle);
		if (options.autoRenew()) {
			watchdog.watch(handle);
		}
		else if (!options.expires()) {
			watchdog.check(handle, holderCheckInterval);
		}
		listeners.onAcquired(handle);
		return handle;
	}

	/**
	 * The listeners, for events that have no handle (failed acquisitions).
	 */
	public LockListener listeners() {
		return listeners;
	}

	/** Whether any listener is registered: without one, callers may skip building an event's arguments. */
	public boolean listening() {
		return listeners != NO_LISTENERS;
	}

	/** The template's nano clock, which handles count their leases on. */
	LongSupplier nanoClock() {
		return nanoClock;
	}

	/**
	 * The handles held now: released, lost and run-out handles are not listed.
	 */
	public List<LockHandle> held() {
		pruneRunOut();
		return List.copyOf(held);
	}

	/**
	 * Forgets handles whose lease ran out without a release (not renewed, never closed): the store has let them go,
	 * so they are not held, and a registry that kept them would grow with every forgotten handle.
	 */
	private void pruneRunOut() {
		held.removeIf(handle -> !handle.isHeld());
	}

	/**
	 * Marks this template's handles of the lock ID on the released keys as released: the template unlocked them by
	 * ID, so closing them afterwards is not an error.
	 */
	public void releasedById(String lockId, Set<String> keys) {
		for (LeaseHandle handle : List.copyOf(held)) {
			if (lockId.equals(handle.groupId()) && keys.contains(handle.key())) {
				handle.releasedById();
			}
		}
	}

	/**
	 * Counts the lease of this template's handles of the lock ID on the renewed keys from {@code startNanos}.
	 */
	public void renewedById(String lockId, Set<String> keys, long startNanos, Duration lease) {
		for (LeaseHandle handle : held) {
			if (lockId.equals(handle.groupId()) && keys.contains(handle.key())) {
				handle.renewedById(startNanos, lease);
			}
		}
	}

	/**
	 * Releases every held handle, logging failures.
	 * @return how many were released cleanly
	 */
	public int releaseAll() {
		int released = 0;
		for (LeaseHandle handle : List.copyOf(held)) {
			try {
				Interrupts.uninterruptibly(handle::release);
				released++;
			}
			catch (DistributedLockException ex) {
				logger.warn("Release of lock '" + handle.key() + "' failed during releaseAll: " + ex.getMessage());
			}
		}
		return released;
	}

	/**
	 * Releases every held handle and stops the watchdog.
	 */
	@Override
	public void close() {
		releaseAll();
		watchdog.close();
	}

	/** A handle was released normally. */
	void released(LeaseHandle handle, long heldNanos) {
		held.remove(handle);
		if (listening()) {
			listeners.onReleased(handle, Duration.ofNanos(heldNanos));
		}
	}

	/** A handle's release failed. */
	void releaseFailed(LeaseHandle handle, DistributedLockException error) {
		if (handle.isHeld()) {
			// A release the store could not take leaves the handle held: the watchdog runs it again, every third of
			// the lease (at most every holder-check interval), or every holder-check interval without expiry.
			long every = holderCheckInterval.toNanos();
			watchdog.retryRelease(handle,
					handle.expires() ? Math.min(every, Watchdog.renewIntervalNanos(handle.timeout())) : every);
		}
		else {
			held.remove(handle);
		}
		listeners.onReleaseFailed(handle, error);
	}

	/** A released handle that nobody is to hear of again (a failed release found nothing left to release). */
	void forget(LeaseHandle handle) {
		held.remove(handle);
	}

	/** The watchdog renewed a handle's lease. */
	void renewed(LeaseHandle handle) {
		listeners.onRenewed(handle);
	}

	/** A handle's lock was found lost. */
	void lost(LeaseHandle handle, LockLostException cause) {
		held.remove(handle);
		listeners.onLost(handle, cause);
	}

}
