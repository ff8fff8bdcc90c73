package dev.distlock.core.internal;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The watchdog's renewal of one {@link LeaseHandle}: the scheduled ticks, cancelled when the handle is released or
 * lost, and what one tick does. At most one renewal runs at a time, so a renewal stuck in the store is not stacked
 * with more.
 */
final class HandleRenewal {

	private static final Log logger = LogFactory.getLog(HandleRenewal.class);

	private final LeaseHandle handle;

	private final HandleRegistry registry;

	private final LongSupplier nanoClock;

	private volatile @Nullable ScheduledFuture<?> ticks;

	/** Whether a renewal is running now. */
	private final AtomicBoolean renewing = new AtomicBoolean();

	HandleRenewal(LeaseHandle handle, HandleRegistry registry, LongSupplier nanoClock) {
		this.handle = handle;
		this.registry = registry;
		this.nanoClock = nanoClock;
	}

	/**
	 * Keeps the watchdog's scheduled ticks, to cancel them on release or loss; cancels them at once when the handle
	 * was released or lost already.
	 */
	void attach(ScheduledFuture<?> future) {
		this.ticks = future;
		if (handle.releasedOrLost()) {
			future.cancel(false);
		}
	}

	/** Stops the ticks, if any were attached. */
	void cancel() {
		ScheduledFuture<?> future = ticks;
		if (future != null) {
			future.cancel(false);
		}
	}

	/**
	 * One check of a lock without expiry: the store says whether this token still holds it, without giving it a
	 * lease. A "no" means lost (released by lock ID or by force, maybe taken by someone else); a store error is
	 * retried on the next check, as there is no lease that could run out meanwhile.
	 */
	void check() {
		if (handle.releasedOrLost() || !renewing.compareAndSet(false, true)) {
			return;
		}
		try {
			if (!handle.isHeldInStore()) {
				handle.markLost(null);
			}
		}
		catch (UnsupportedOperationException ex) {
			logger.debug("Lock provider cannot check lock '" + handle.key() + "'; its loss shows only at release", ex);
			cancel();
		}
		catch (RuntimeException ex) {
			logger.debug("Ownership check of lock '" + handle.key() + "' failed; retrying on the next check", ex);
		}
		finally {
			renewing.set(false);
		}
	}

	/**
	 * One tick: extend to the full lease. A refused extend means lost. A store error is retried on the next tick while
	 * the local lease still covers it, and means lost once it would not.
	 */
	void tick(Duration interval) {
		if (handle.releasedOrLost() || !renewing.compareAndSet(false, true)) {
			return;
		}
		long start = nanoClock.getAsLong();
		try {
			if (handle.renewInStore(handle.timeout())) {
				handle.countLeaseFrom(start, handle.timeout());
				registry.renewed(handle);
			}
			else {
				handle.markLost(null);
			}
		}
		catch (RuntimeException ex) {
			if (handle.leaseRunsOutWithin(interval)) {
				handle.markLost(ex);
			}
			else {
				logger.debug("Renewal of lock '" + handle.key() + "' failed; retrying on the next tick", ex);
			}
		}
		finally {
			renewing.set(false);
		}
	}

}
