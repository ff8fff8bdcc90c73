package dev.distlock.core.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.distlock.core.LockOptions;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.LockExtendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockLostException;
import dev.distlock.core.LockMode;
import dev.distlock.core.LockReleaseException;
import dev.distlock.core.spi.Interrupts;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockInfo;

/**
 * A held lock: the {@link LockHandle} a template hands out, a provider {@link Lease} plus local state.
 * <ul>
 * <li>Three states: held, released, lost; only held moves, and only once.</li>
 * <li>The handle counts its lease itself, on the local monotonic clock, from before the call that took, extended or
 * renewed the lock was sent, so it runs out no later than the store's lease; a lock without expiry has no lease until
 * an extend gives it one.</li>
 * <li>The {@link Watchdog} ticks, and each tick renews the handle here (or, for a lock without expiry, checks that
 * the store still holds it); at most one renewal runs at a time, so a renewal stuck in the store is not stacked with
 * more.</li>
 * <li>Its calls on the provider lease (extend, renewal, holder check, release) are each named for
 * {@link StoreErrors}; a release reaches the store even when the caller was interrupted in the body, and before the
 * minimum hold has passed it shortens the lease to the rest of the hold instead of releasing.</li>
 * <li>The news of a loss goes out from here, once: the log (a warning), the {@link HandleRegistry} and its listeners,
 * and the callbacks registered on the handle; one callback's exception reaches neither the others nor the code that
 * found the loss.</li>
 * </ul>
 */
public final class LeaseHandle implements LockHandle {

	/** How many times a release cut short by another thread's interrupt is run, in all. */
	static final int RELEASE_ATTEMPTS = 3;


	private static final Log logger = LogFactory.getLog(LeaseHandle.class);

	private enum State {

		HELD, RELEASED, LOST

	}

	private final String key;

	private final String token;

	private final Lease lease;

	private final LockMode mode;

	private final @Nullable String name;

	private final @Nullable String groupId;

	private final Instant acquiredAt;

	private final long acquiredNanos;

	private final Duration waited;

	private final Duration timeout;

	private final HandleRegistry registry;

	private final LongSupplier nanoClock;

	private final AtomicReference<State> state = new AtomicReference<>(State.HELD);

	/** The end of the local lease, on the nano clock. */
	private volatile long expiresAtNanos;

	/** False for a lock without expiry until an extend gives it a lease. */
	private volatile boolean expires;

	private final @Nullable Duration holdAtLeast;

	private final StoreErrors store;

	/** The watchdog's scheduled ticks, cancelled when the handle is released or lost. */
	private volatile @Nullable ScheduledFuture<?> ticks;

	/** Whether a renewal is running now. */
	private final AtomicBoolean renewing = new AtomicBoolean();

	private final List<Runnable> lostCallbacks = new CopyOnWriteArrayList<>();

	/** Set before the lost callbacks run, so one added from then on runs at once. */
	private volatile boolean lostSent;

	/**
	 * Wraps a granted lease.
	 * @param requestedNanos when the successful attempt was sent; the lease is counted from then
	 * @param expires false for a lock without expiry, whose {@code timeout} is unused
	 */
	public LeaseHandle(String key, String token, Lease lease, LockMode mode, @Nullable String name,
			@Nullable String groupId, Duration waited, Duration timeout, boolean expires,
			@Nullable Duration holdAtLeast, long requestedNanos, StoreErrors store, HandleRegistry registry,
			LongSupplier nanoClock) {
		this.key = key;
		this.token = token;
		this.lease = lease;
		this.mode = mode;
		this.name = name;
		this.groupId = groupId;
		this.acquiredAt = Instant.now();
		this.acquiredNanos = requestedNanos;
		this.waited = waited;
		this.timeout = timeout;
		this.registry = registry;
		this.nanoClock = nanoClock;
		this.expiresAtNanos = requestedNanos + timeout.toNanos();
		this.expires = expires;
		this.holdAtLeast = holdAtLeast;
		this.store = store;
	}

	@Override
	public String key() {
		return key;
	}

	@Override
	public String token() {
		return token;
	}

	@Override
	public long fencingToken() {
		return lease.fencingToken();
	}

	@Override
	public LockMode mode() {
		return mode;
	}

	@Override
	public @Nullable String name() {
		return name;
	}

	@Override
	public @Nullable String groupId() {
		return groupId;
	}

	@Override
	public Instant acquiredAt() {
		return acquiredAt;
	}

	@Override
	public Duration waited() {
		return waited;
	}

	/**
	 * The lease length this handle was acquired with; the watchdog renews to it.
	 */
	public Duration timeout() {
		return timeout;
	}

	@Override
	public Duration remaining() {
		if (state.get() != State.HELD) {
			return Duration.ZERO;
		}
		if (!expires) {
			return LockInfo.NO_EXPIRY;
		}
		return Duration.ofNanos(Math.max(0, expiresAtNanos - nanoClock.getAsLong()));
	}

	@Override
	public boolean isHeld() {
		return state.get() == State.HELD && (!expires || nanoClock.getAsLong() - expiresAtNanos < 0);
	}

	@Override
	public void assertHeld() {
		if (!isHeld()) {
			throw new LockLostException(key(), "Lock '" + key() + "' is no longer held (" + describeState() + ")",
					null);
		}
	}

	@Override
	public void extend(Duration newLease) {
		LockOptions.checkDuration("extend", newLease);
		if (state.get() != State.HELD) {
			throw new LockExtendException(key(), "Cannot extend lock '" + key() + "': the handle was " + describeState(),
					null);
		}
		if (!expires) {
			// A lease here would make a lock asked for without expiry expire: a choice to make by name, not by extend.
			throw new LockExtendException(key(), "Cannot extend lock '" + key() + "': it was taken without expiry "
					+ "(noExpiry), and a lease of " + newLease + " would make it expire; give it one explicitly with "
					+ "LockTemplate.renew(lockId, ttl), or release it", null);
		}
		long start = nanoClock.getAsLong();
		boolean extended;
		try {
			extended = store.call(key, "extend", () -> lease.extend(newLease));
		}
		catch (LockStoreException ex) {
			throw new LockExtendException(key, ex.getMessage(), ex);
		}
		if (!extended) {
			markLost(null);
			throw new LockExtendException(key(),
					"Cannot extend lock '" + key() + "': it is no longer held under this owner token", null);
		}
		countLeaseFrom(start, newLease);
	}

	/**
	 * Marks the handle released because its lock ID was unlocked through the template: the store no longer holds
	 * it, and closing the handle afterwards is not an error.
	 */
	void releasedById() {
		if (state.compareAndSet(State.HELD, State.RELEASED)) {
			cancelRenewal();
			registry.released(this, Duration.ofNanos(nanoClock.getAsLong() - acquiredNanos));
		}
	}

	/**
	 * Counts the lease from {@code startNanos} again: its lock ID was renewed through the template.
	 */
	void renewedById(long startNanos, Duration lease) {
		if (state.get() == State.HELD) {
			countLeaseFrom(startNanos, lease);
		}
	}

	@Override
	public void release() {
		if (!state.compareAndSet(State.HELD, State.RELEASED)) {
			throw new LockReleaseException(key, "Cannot release lock '" + key + "': the handle was "
					+ describeState(), null);
		}
		cancelRenewal();
		long heldNanos = nanoClock.getAsLong() - acquiredNanos;
		boolean released;
		try {
			released = releaseInStore(heldNanos);
		}
		catch (LockStoreException ex) {
			// The store could not be asked: the lock may still be held there, so the handle stays held (until its
			// lease runs out) and a later release can try again.
			state.compareAndSet(State.RELEASED, State.HELD);
			LockReleaseException error = new LockReleaseException(key, ex.getMessage(), ex);
			registry.releaseFailed(this, error);
			throw error;
		}
		if (!released) {
			state.set(State.LOST);
			LockLostException lost = new LockLostException(key,
					"Lock '" + key + "' was no longer held under this owner token at release", null);
			sendLost(lost);
			LockReleaseException error = new LockReleaseException(key, "Cannot release lock '" + key
					+ "': it is no longer held under this owner token", null);
			registry.releaseFailed(this, error);
			throw error;
		}
		registry.released(this, Duration.ofNanos(heldNanos));
	}

	@Override
	public void close() {
		if (state.get() != State.RELEASED) {
			release();
		}
	}

	/**
	 * Adds a callback, run when the loss is found, or at once (on the caller's thread) if it was found already.
	 */
	@Override
	public void onLost(Runnable callback) {
		lostCallbacks.add(callback);
		if (lostSent) {
			callback.run();
		}
	}

	/**
	 * Counts a lease of {@code lease} from {@code startNanos}: the store took an extend or a renewal sent then. A lock
	 * without expiry has a lease from now on, as in the store.
	 */
	private void countLeaseFrom(long startNanos, Duration lease) {
		expiresAtNanos = startNanos + lease.toNanos();
		expires = true;
	}

	/** Whether the local lease runs out within {@code interval} from now. */
	private boolean leaseRunsOutWithin(Duration interval) {
		return expiresAtNanos - nanoClock.getAsLong() <= interval.toNanos();
	}

	/**
	 * Extends the lease to {@code fullLease} from now, for the watchdog.
	 * @return false when the store no longer holds the lock under this owner token
	 * @throws LockStoreException when the store could not be asked
	 */
	private boolean renewInStore(Duration fullLease) {
		return store.call(key, "renew", () -> lease.extend(fullLease));
	}

	/**
	 * Asks the store whether the lock is still held under this owner token, for a lock without expiry.
	 * @return false when the store no longer holds the lock under this owner token
	 * @throws LockStoreException when the store could not be asked
	 * @throws UnsupportedOperationException when the provider cannot be asked
	 */
	private boolean isHeldInStore() {
		return store.call(key, "check ownership of", lease::isHeld);
	}

	/**
	 * Releases the lock in the store, or shortens its lease to the rest of the minimum hold. It runs once more,
	 * uninterrupted, when another thread interrupts it midway.
	 * @param heldNanos how long the handle has held the lock
	 * @return false when the store no longer holds the lock under this owner token
	 * @throws LockStoreException when the store could not be asked
	 */
	private boolean releaseInStore(long heldNanos) {
		// Cleanup must reach the store even when the caller was interrupted in the body.
		return Interrupts.uninterruptibly(() -> store.call(key, "release", () -> {
			boolean interruptedMeanwhile = false;
			try {
				for (int attempt = 1;; attempt++) {
					try {
						return releaseOnce(heldNanos);
					}
					catch (RuntimeException ex) {
						if (!Thread.interrupted()) {
							throw ex;
						}
						// Interrupted by another thread during the call (a storm of interrupts may do it again): release
						// is idempotent per token, so run it again uninterrupted, a bounded number of times.
						interruptedMeanwhile = true;
						if (attempt == RELEASE_ATTEMPTS) {
							throw ex;
						}
					}
				}
			}
			finally {
				if (interruptedMeanwhile) {
					Thread.currentThread().interrupt();
				}
			}
		}));
	}

	private boolean releaseOnce(long heldNanos) {
		if (holdAtLeast != null && heldNanos < holdAtLeast.toNanos()) {
			// Keep the lock until the minimum hold has passed by shortening the lease, never by sleeping.
			return lease.extend(Duration.ofNanos(holdAtLeast.toNanos() - heldNanos));
		}
		return lease.release();
	}

	/**
	 * Keeps the watchdog's scheduled ticks, to cancel them on release or loss; cancels them at once when the handle
	 * was released or lost already.
	 */
	void attachRenewal(ScheduledFuture<?> future) {
		this.ticks = future;
		if (releasedOrLost()) {
			future.cancel(false);
		}
	}

	/** Stops the watchdog's ticks, if any were attached. */
	void cancelRenewal() {
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
	void checkHolder() {
		if (releasedOrLost() || !renewing.compareAndSet(false, true)) {
			return;
		}
		try {
			if (!isHeldInStore()) {
				markLost(null);
			}
		}
		catch (UnsupportedOperationException ex) {
			logger.debug("Lock provider cannot check lock '" + key + "'; its loss shows only at release", ex);
			cancelRenewal();
		}
		catch (RuntimeException ex) {
			logger.debug("Ownership check of lock '" + key + "' failed; retrying on the next check", ex);
		}
		finally {
			renewing.set(false);
		}
	}

	/**
	 * One watchdog tick: extend to the full lease. A refused extend means lost. A store error is retried on the next
	 * tick while the local lease still covers it, and means lost once it would not.
	 */
	void renewOnce(Duration interval) {
		if (releasedOrLost() || !renewing.compareAndSet(false, true)) {
			return;
		}
		long start = nanoClock.getAsLong();
		try {
			if (renewInStore(timeout)) {
				countLeaseFrom(start, timeout);
				registry.renewed(this);
			}
			else {
				markLost(null);
			}
		}
		catch (RuntimeException ex) {
			if (leaseRunsOutWithin(interval)) {
				markLost(ex);
			}
			else {
				logger.debug("Renewal of lock '" + key + "' failed; retrying on the next tick", ex);
			}
		}
		finally {
			renewing.set(false);
		}
	}

	/** Whether the handle left the held state: renewal stops. */
	private boolean releasedOrLost() {
		return state.get() != State.HELD;
	}

	/**
	 * Moves a held handle to lost and tells everyone; {@code cause} is the store error of a renewal, or null when the
	 * store said the lock is no longer this owner's.
	 */
	void markLost(@Nullable Throwable cause) {
		if (state.compareAndSet(State.HELD, State.LOST)) {
			cancelRenewal();
			sendLost(new LockLostException(key(), "Lock '" + key() + "' was lost: "
					+ (cause != null ? "renewal failed: " + cause.getMessage() : "another owner or no lock in the store"),
					cause));
		}
	}

	/**
	 * Reports the loss: called once, when the handle moves to lost.
	 */
	private void sendLost(LockLostException cause) {
		lostSent = true;
		logger.warn("Lock '" + key() + "' was lost (fencing token " + fencingToken() + ")");
		registry.lost(this, cause);
		for (Runnable callback : lostCallbacks) {
			try {
				callback.run();
			}
			catch (RuntimeException ex) {
				logger.warn("Lock-lost callback for '" + key() + "' failed", ex);
			}
		}
	}

	private String describeState() {
		return switch (state.get()) {
			case HELD -> "held, but its lease ran out";
			case RELEASED -> "already released";
			case LOST -> "lost";
		};
	}

	@Override
	public String toString() {
		return "LockHandle[key='" + key() + "', fencingToken=" + fencingToken() + ", mode=" + mode + ", state="
				+ state.get() + "]";
	}

}
