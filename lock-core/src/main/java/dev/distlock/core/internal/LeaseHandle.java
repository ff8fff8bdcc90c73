package dev.distlock.core.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
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
import dev.distlock.core.spi.LockRequest;

/**
 * A held lock: the {@link LockHandle} a template hands out, a provider {@link Lease} plus local state.
 * <ul>
 * <li>Three states: held, released, lost; only held moves, and only once.</li>
 * <li>The handle counts its lease itself, on the local monotonic clock, from before the call that took, extended or
 * renewed the lock was sent, so it runs out no later than the store's lease; a lock without expiry has no lease until
 * an extend gives it one.</li>
 * <li>The {@link Watchdog}'s sweep finds the handle due (its interval and due time are kept here) and hands a tick
 * to the renewal pool, which renews the handle here (or, for a lock without expiry, checks that the store still holds
 * it); at most one renewal runs at a time, so a renewal stuck in the store is not stacked with more. A release or a
 * loss stops the ticks by writing this handle alone. A release the store could not take leaves the handle held and
 * makes its ticks run the release again until it lands, or the lease runs out.</li>
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

	/** What a watchdog tick does for this handle. */
	private enum Tick {

		/** Extends the lease (auto-renew). */
		RENEW,
		/** Asks the store whether it still holds a lock without expiry. */
		CHECK_HOLDER,
		/** Runs again a release the store could not take. */
		RELEASE

	}

	private static final VarHandle STATE;

	private static final VarHandle RENEWING;

	static {
		try {
			MethodHandles.Lookup lookup = MethodHandles.lookup();
			STATE = lookup.findVarHandle(LeaseHandle.class, "state", State.class);
			RENEWING = lookup.findVarHandle(LeaseHandle.class, "renewing", boolean.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	/** The request it was granted for: key, owner token, mode. */
	private final LockRequest request;

	private final Lease lease;

	/** The options it was acquired with: name, lease length, minimum hold. */
	private final LockOptions options;

	private final @Nullable String groupId;

	private final Instant acquiredAt;

	private final long acquiredNanos;

	private final long waitedNanos;

	private final HandleRegistry registry;

	private final LongSupplier nanoClock;

	/** Held, released or lost; moved by {@link #STATE}. */
	private volatile State state = State.HELD;

	/** The end of the local lease, on the nano clock. */
	private volatile long expiresAtNanos;

	/** False for a lock without expiry until an extend gives it a lease. */
	private volatile boolean expires;

	private final StoreErrors store;

	/**
	 * How often the watchdog renews the lease (auto-renew), checks the holder (no expiry) or runs a failed release
	 * again, in nanoseconds; 0 when it does none of these, or no more (released, lost, or a store that cannot be
	 * asked). Written after {@link #tick} and {@link #dueNanos}, read before them.
	 */
	private volatile long tickNanos;

	/** What a tick does. */
	private Tick tick = Tick.RENEW;

	/** When the next tick is due, by the nano clock; moved only by the watchdog's sweep once the handle is watched. */
	private long dueNanos;

	/** Whether a renewal or holder check is running now; moved by {@link #RENEWING}. */
	private volatile boolean renewing;

	/** Made on the first {@link #onLost} call: most handles never get one. */
	private volatile @Nullable List<Runnable> lostCallbacks;

	/** Set before the lost callbacks run, so one added from then on runs at once. */
	private volatile boolean lostSent;

	/**
	 * Wraps a granted lease; the owner token, key and mode are the request's, the name, lease length, expiry and
	 * minimum hold the options'.
	 * @param waitedNanos how long the caller waited for it
	 * @param requestedNanos when the successful attempt was sent; the lease is counted from then
	 */
	public LeaseHandle(LockRequest request, Lease lease, LockOptions options, @Nullable String groupId,
			long waitedNanos, long requestedNanos, StoreErrors store, HandleRegistry registry) {
		this.request = request;
		this.lease = lease;
		this.options = options;
		this.groupId = groupId;
		this.acquiredAt = Instant.now();
		this.acquiredNanos = requestedNanos;
		this.waitedNanos = waitedNanos;
		this.registry = registry;
		this.nanoClock = registry.nanoClock();
		this.expiresAtNanos = requestedNanos + options.timeout().toNanos();
		this.expires = options.expires();
		this.store = store;
	}

	@Override
	public String key() {
		return request.key();
	}

	@Override
	public String token() {
		return request.token();
	}

	@Override
	public long fencingToken() {
		return lease.fencingToken();
	}

	@Override
	public LockMode mode() {
		return request.mode();
	}

	@Override
	public @Nullable String name() {
		return options.name();
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
		return Duration.ofNanos(waitedNanos);
	}

	/**
	 * The lease length this handle was acquired with; the watchdog renews to it.
	 */
	public Duration timeout() {
		return options.timeout();
	}

	@Override
	public Duration remaining() {
		if (state != State.HELD) {
			return Duration.ZERO;
		}
		if (!expires) {
			return LockInfo.NO_EXPIRY;
		}
		return Duration.ofNanos(Math.max(0, expiresAtNanos - nanoClock.getAsLong()));
	}

	@Override
	public boolean isHeld() {
		return state == State.HELD && (!expires || nanoClock.getAsLong() - expiresAtNanos < 0);
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
		if (state != State.HELD) {
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
			extended = store.call(key(), "extend", () -> lease.extend(newLease));
		}
		catch (LockStoreException ex) {
			throw new LockExtendException(key(), ex.getMessage(), ex);
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
		if (STATE.compareAndSet(this, State.HELD, State.RELEASED)) {
			cancelRenewal();
			registry.released(this, nanoClock.getAsLong() - acquiredNanos);
		}
	}

	/**
	 * Counts the lease from {@code startNanos} again: its lock ID was renewed through the template.
	 */
	void renewedById(long startNanos, Duration lease) {
		if (state == State.HELD) {
			countLeaseFrom(startNanos, lease);
		}
	}

	@Override
	public void release() {
		if (!STATE.compareAndSet(this, State.HELD, State.RELEASED)) {
			throw new LockReleaseException(key(), "Cannot release lock '" + key() + "': the handle was "
					+ describeState(), null);
		}
		cancelRenewal();
		long heldNanos = nanoClock.getAsLong() - acquiredNanos;
		boolean released;
		try {
			released = releaseInStore(heldNanos);
		}
		catch (LockStoreException ex) {
			// The store could not be asked: the lock may still be held there, so the handle stays held, the watchdog
			// runs the release again (releaseAgain, armed by the registry) and the caller may try again too.
			STATE.compareAndSet(this, State.RELEASED, State.HELD);
			LockReleaseException error = new LockReleaseException(key(), ex.getMessage(), ex);
			registry.releaseFailed(this, error);
			throw error;
		}
		if (!released) {
			state = State.LOST;
			LockLostException lost = new LockLostException(key(),
					"Lock '" + key() + "' was no longer held under this owner token at release", null);
			sendLost(lost);
			LockReleaseException error = new LockReleaseException(key(), "Cannot release lock '" + key()
					+ "': it is no longer held under this owner token", null);
			registry.releaseFailed(this, error);
			throw error;
		}
		registry.released(this, heldNanos);
	}

	@Override
	public void close() {
		if (state != State.RELEASED) {
			release();
		}
	}

	/**
	 * Adds a callback, run when the loss is found, or at once (on the caller's thread) if it was found already.
	 */
	@Override
	public void onLost(Runnable callback) {
		lostCallbacks().add(callback);
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
	private boolean leaseRunsOutWithin(long intervalNanos) {
		return expiresAtNanos - nanoClock.getAsLong() <= intervalNanos;
	}

	/**
	 * Extends the lease to {@code fullLease} from now, for the watchdog.
	 * @return false when the store no longer holds the lock under this owner token
	 * @throws LockStoreException when the store could not be asked
	 */
	private boolean renewInStore(Duration fullLease) {
		return store.call(key(), "renew", () -> lease.extend(fullLease));
	}

	/**
	 * Asks the store whether the lock is still held under this owner token, for a lock without expiry.
	 * @return false when the store no longer holds the lock under this owner token
	 * @throws LockStoreException when the store could not be asked
	 * @throws UnsupportedOperationException when the provider cannot be asked
	 */
	private boolean isHeldInStore() {
		return store.call(key(), "check ownership of", lease::isHeld);
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
		return Interrupts.uninterruptibly(() -> store.call(key(), "release", () -> {
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
		Duration holdAtLeast = options.holdAtLeast();
		if (holdAtLeast != null && heldNanos < holdAtLeast.toNanos()) {
			// Keep the lock until the minimum hold has passed by shortening the lease, never by sleeping.
			return lease.extend(Duration.ofNanos(holdAtLeast.toNanos() - heldNanos));
		}
		return lease.release();
	}

	/**
	 * Makes the watchdog tick for this handle every {@code everyNanos}, the first tick an interval after the lease
	 * started; call it before the watchdog can see the handle.
	 * @return when the first tick is due
	 */
	long tickEvery(long everyNanos, boolean renewsLease) {
		this.tick = renewsLease ? Tick.RENEW : Tick.CHECK_HOLDER;
		this.dueNanos = acquiredNanos + everyNanos;
		this.tickNanos = releasedOrLost() ? 0 : everyNanos;
		return dueNanos;
	}

	/**
	 * Makes the watchdog run this handle's release again every {@code everyNanos}, the first an interval from now,
	 * after a release the store could not take (see {@link #releaseAgain}).
	 * @return when the first run is due
	 */
	long releaseEvery(long everyNanos) {
		this.tick = Tick.RELEASE;
		this.dueNanos = nanoClock.getAsLong() + everyNanos;
		this.tickNanos = releasedOrLost() ? 0 : everyNanos;
		return dueNanos;
	}

	/** Whether the lock has a lease (false for one without expiry): a failed release is then retried until it ends. */
	boolean expires() {
		return expires;
	}

	/** The watchdog's interval for this handle, 0 when it does not tick (any more). */
	long tickNanos() {
		return tickNanos;
	}

	/** When the next tick is due; for the watchdog's sweep. */
	long dueNanos() {
		return dueNanos;
	}

	/** Moves the next tick; for the watchdog's sweep. */
	void dueNanos(long nanos) {
		this.dueNanos = nanos;
	}

	/**
	 * Claims the tick due now: false when the handle left the held state, ticks no more, or its last tick still runs
	 * (then this one is skipped, so a renewal stuck in the store is not stacked with more). A claimed tick ends with
	 * {@link #runTick} or {@link #endTick}.
	 */
	boolean startTick() {
		return !releasedOrLost() && tickNanos != 0 && RENEWING.compareAndSet(this, false, true);
	}

	/** Runs a claimed tick: a renewal, a holder check for a lock without expiry, or a failed release again. */
	void runTick(long everyNanos) {
		try {
			switch (tick) {
				case RENEW -> renewOnce(everyNanos);
				case CHECK_HOLDER -> checkHolder();
				case RELEASE -> releaseAgain();
			}
		}
		finally {
			endTick();
		}
	}

	/** Ends a claimed tick without running it. */
	void endTick() {
		renewing = false;
	}

	/** Stops the watchdog's ticks for this handle. */
	void cancelRenewal() {
		tickNanos = 0;
	}

	/**
	 * One check of a lock without expiry: the store says whether this token still holds it, without giving it a
	 * lease. A "no" means lost (released by lock ID or by force, maybe taken by someone else); a store error is
	 * retried on the next check, as there is no lease that could run out meanwhile.
	 */
	private void checkHolder() {
		if (releasedOrLost()) {
			return;
		}
		try {
			if (!isHeldInStore()) {
				markLost(null);
			}
		}
		catch (UnsupportedOperationException ex) {
			logger.debug("Lock provider cannot check lock '" + key() + "'; its loss shows only at release", ex);
			cancelRenewal();
		}
		catch (RuntimeException ex) {
			logger.debug("Ownership check of lock '" + key() + "' failed; retrying on the next check", ex);
		}
	}

	/**
	 * One watchdog tick: extend to the full lease. A refused extend means lost. A store error is retried on the next
	 * tick while the local lease still covers it, and means lost once it would not.
	 */
	private void renewOnce(long intervalNanos) {
		if (releasedOrLost()) {
			return;
		}
		long start = nanoClock.getAsLong();
		try {
			if (renewInStore(timeout())) {
				countLeaseFrom(start, timeout());
				registry.renewed(this);
			}
			else {
				markLost(null);
			}
		}
		catch (RuntimeException ex) {
			if (leaseRunsOutWithin(intervalNanos)) {
				markLost(ex);
			}
			else {
				logger.debug("Renewal of lock '" + key() + "' failed; retrying on the next tick", ex);
			}
		}
	}

	/**
	 * One more run of a release the store could not take (its caller got a {@link LockReleaseException} and the handle
	 * stayed held): the lock is freed as soon as the store answers, instead of staying there for the rest of its lease,
	 * or for good without expiry, because the store failed once at release (a network blip, a failover, a storm of
	 * interrupts). The runs stop once the handle is no longer held: released (here, or by its caller again), lost, or
	 * its lease run out, when the store has let the lock go by itself, or the store no longer holding it under this
	 * token. Listeners hear the release that lands, not each failed run; a store error waits for the next run.
	 */
	private void releaseAgain() {
		if (!isHeld()) {
			cancelRenewal();
			return;
		}
		if (!STATE.compareAndSet(this, State.HELD, State.RELEASED)) {
			return;
		}
		long heldNanos = nanoClock.getAsLong() - acquiredNanos;
		boolean released;
		try {
			released = releaseInStore(heldNanos);
		}
		catch (LockStoreException ex) {
			STATE.compareAndSet(this, State.RELEASED, State.HELD);
			logger.debug("Release of lock '" + key() + "' failed again; running it again on the next tick", ex);
			return;
		}
		cancelRenewal();
		if (released) {
			registry.released(this, heldNanos);
		}
		else {
			// Not this token's any more: the held-back first run may have landed and another holder come and gone
			// since, or the lock was lost during the outage. The caller has had its error; a lock-lost signal now
			// could misreport a release that worked, so the runs just end, with nothing of this handle left.
			logger.debug("Lock '" + key() + "' was no longer held under this owner token when its failed release was "
					+ "run again; nothing left to release");
			registry.forget(this);
		}
	}

	/** Whether the handle left the held state: renewal stops. */
	private boolean releasedOrLost() {
		return state != State.HELD;
	}

	/**
	 * Moves a held handle to lost and tells everyone; {@code cause} is the store error of a renewal, or null when the
	 * store said the lock is no longer this owner's.
	 */
	void markLost(@Nullable Throwable cause) {
		if (STATE.compareAndSet(this, State.HELD, State.LOST)) {
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
		List<Runnable> callbacks = lostCallbacks;
		for (Runnable callback : callbacks != null ? callbacks : List.<Runnable>of()) {
			try {
				callback.run();
			}
			catch (RuntimeException ex) {
				logger.warn("Lock-lost callback for '" + key() + "' failed", ex);
			}
		}
	}

	private List<Runnable> lostCallbacks() {
		List<Runnable> callbacks = lostCallbacks;
		if (callbacks == null) {
			synchronized (this) {
				callbacks = lostCallbacks;
				if (callbacks == null) {
					callbacks = new CopyOnWriteArrayList<>();
					lostCallbacks = callbacks;
				}
			}
		}
		return callbacks;
	}

	private String describeState() {
		return switch (state) {
			case HELD -> "held, but its lease ran out";
			case RELEASED -> "already released";
			case LOST -> "lost";
		};
	}

	@Override
	public String toString() {
		return "LockHandle[key()='" + key() + "', fencingToken=" + fencingToken() + ", mode=" + mode() + ", state="
				+ state + "]";
	}

}
