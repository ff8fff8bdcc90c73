package dev.distlock.core.internal;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.distlock.core.DistributedLockException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockLostException;
import dev.distlock.core.LockOptions;
import dev.distlock.core.spi.Lease;

/**
 * The handles one template has handed out and not yet seen released or lost, with the watchdog that renews them and
 * the listeners that hear about them.
 */
public final class HandleRegistry implements HandleEvents, AutoCloseable {

	private static final Log logger = LogFactory.getLog(HandleRegistry.class);

	private final Set<ManagedLockHandle> held = ConcurrentHashMap.newKeySet();

	private final LockListener listeners;

	private final Watchdog watchdog;

	private final LongSupplier nanoClock;

	/**
	 * A registry reporting to the listeners, renewing on the scheduler (or its own thread when null).
	 */
	public HandleRegistry(List<LockListener> listeners, @Nullable ScheduledExecutorService scheduler,
			LongSupplier nanoClock) {
		this.listeners = new Listeners(listeners);
		this.watchdog = new Watchdog(scheduler);
		this.nanoClock = nanoClock;
	}

	/**
	 * Wraps a granted lease in a handle, registers it, starts renewal if asked, and reports the acquisition.
	 * @param attemptNanos when the successful attempt was sent
	 * @param loopNanos when the caller started waiting
	 */
	public ManagedLockHandle register(Lease lease, LockOptions options, @Nullable String groupId, long attemptNanos,
			long loopNanos) {
		Duration waited = Duration.ofNanos(nanoClock.getAsLong() - loopNanos);
		ManagedLockHandle handle = new ManagedLockHandle(lease, options.mode(), groupId, waited, options.timeout(),
				options.holdAtLeast(), attemptNanos, this, nanoClock);
		held.add(handle);
		if (options.autoRenew()) {
			watchdog.watch(handle);
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

	/**
	 * The handles held now.
	 */
	public List<LockHandle> held() {
		return List.copyOf(held);
	}

	/**
	 * Releases every held handle, logging failures.
	 * @return how many were released cleanly
	 */
	public int releaseAll() {
		int released = 0;
		for (ManagedLockHandle handle : List.copyOf(held)) {
			try {
				handle.release();
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

	@Override
	public void released(ManagedLockHandle handle, Duration heldFor) {
		held.remove(handle);
		listeners.onReleased(handle, heldFor);
	}

	@Override
	public void releaseFailed(ManagedLockHandle handle, DistributedLockException error) {
		held.remove(handle);
		listeners.onReleaseFailed(handle, error);
	}

	@Override
	public void renewed(ManagedLockHandle handle) {
		listeners.onRenewed(handle);
	}

	@Override
	public void lost(ManagedLockHandle handle, LockLostException cause) {
		held.remove(handle);
		listeners.onLost(handle, cause);
	}

}
