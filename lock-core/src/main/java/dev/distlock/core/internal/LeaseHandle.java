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

import dev.distlock.core.DistributedLockException;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.LockExtendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockLostException;
import dev.distlock.core.LockMode;
import dev.distlock.core.LockReleaseException;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockInfo;

/**
 * The {@link LockHandle} a template hands out: a provider {@link Lease} plus local state. Three states: held,
 * released, lost; only held moves, and only once.
 */
public final class LeaseHandle implements LockHandle {

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

	private final @Nullable Duration holdAtLeast;

	private final StoreCalls store;

	private final HandleEvents events;

	private final LongSupplier nanoClock;

	private final AtomicReference<State> state = new AtomicReference<>(State.HELD);

	private final List<Runnable> lostCallbacks = new CopyOnWriteArrayList<>();

	private volatile long expiresAtNanos;

	/** False for a lock without expiry until an extend gives it a lease. */
	private volatile boolean expires;

	private volatile @Nullable ScheduledFuture<?> renewal;

	/** Whether a renewal is running now, so a renewal stuck in the store is not stacked with more. */
	private final AtomicBoolean renewing = new AtomicBoolean();

	/**
	 * Wraps a granted lease.
	 * @param requestedNanos when the successful attempt was sent; the lease is counted from then
	 * @param expires false for a lock without expiry, whose {@code timeout} is unused
	 */
	public LeaseHandle(String key, String token, Lease lease, LockMode mode, @Nullable String name,
			@Nullable String groupId, Duration waited, Duration timeout, boolean expires,
			@Nullable Duration holdAtLeast, long requestedNanos, StoreCalls store, HandleEvents events,
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
		this.holdAtLeast = holdAtLeast;
		this.store = store;
		this.events = events;
		this.nanoClock = nanoClock;
		this.expiresAtNanos = requestedNanos + timeout.toNanos();
		this.expires = expires;
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
		expiresAtNanos = start + newLease.toNanos();
		expires = true; // a lock without expiry that is extended has a lease from now on, as in the store
	}

	/**
	 * Marks the handle released because its lock ID was unlocked through the template: the store no longer holds
	 * it, and closing the handle afterwards is not an error.
	 */
	void releasedById() {
		if (state.compareAndSet(State.HELD, State.RELEASED)) {
			cancelRenewal();
			events.released(this, Duration.ofNanos(nanoClock.getAsLong() - acquiredNanos));
		}
	}

	/**
	 * Counts the lease from {@code startNanos} again: its lock ID was renewed through the template.
	 */
	void renewedById(long startNanos, Duration ttl) {
		if (state.get() == State.HELD) {
			expiresAtNanos = startNanos + ttl.toNanos();
			expires = true;
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
			// Cleanup must reach the store even when the caller was interrupted in the body.
			released = Interrupts.uninterruptibly(() -> store.call(key, "release", () -> {
				try {
					return releaseInStore(heldNanos);
				}
				catch (RuntimeException ex) {
					if (!Thread.interrupted()) {
						throw ex;
					}
					// Interrupted by another thread during the call: release is idempotent per token, so run it
					// again uninterrupted (the flag is set again afterwards).
					Thread.currentThread().interrupt();
					return Interrupts.uninterruptibly(() -> releaseInStore(heldNanos));
				}
			}));
		}
		catch (LockStoreException ex) {
			// The store could not be asked: the lock may still be held there, so the handle stays held (until its
			// lease runs out) and a later release can try again.
			state.compareAndSet(State.RELEASED, State.HELD);
			LockReleaseException error = new LockReleaseException(key, ex.getMessage(), ex);
			events.releaseFailed(this, error);
			throw error;
		}
		if (!released) {
			state.set(State.LOST);
			LockLostException lost = new LockLostException(key,
					"Lock '" + key + "' was no longer held under this owner token at release", null);
			notifyLost(lost);
			LockReleaseException error = new LockReleaseException(key, "Cannot release lock '" + key
					+ "': it is no longer held under this owner token", null);
			events.releaseFailed(this, error);
			throw error;
		}
		events.released(this, Duration.ofNanos(heldNanos));
	}

	private boolean releaseInStore(long heldNanos) {
		if (holdAtLeast != null && heldNanos < holdAtLeast.toNanos()) {
			// Keep the lock until the minimum hold has passed by shortening the lease, never by sleeping.
			return lease.extend(Duration.ofNanos(holdAtLeast.toNanos() - heldNanos));
		}
		return lease.release();
	}

	@Override
	public void close() {
		if (state.get() != State.RELEASED) {
			release();
		}
	}

	@Override
	public void onLost(Runnable callback) {
		lostCallbacks.add(callback);
		if (state.get() == State.LOST) {
			callback.run();
		}
	}

	/**
	 * Attaches the watchdog's scheduled renewal, cancelled on release or loss.
	 */
	void attachRenewal(ScheduledFuture<?> future) {
		this.renewal = future;
		if (state.get() != State.HELD) {
			future.cancel(false);
		}
	}

	/**
	 * One watchdog tick: extend to the full lease. A refused extend means lost. A store error is retried on the next
	 * tick while the local lease still covers it, and means lost once it would not.
	 */
	void renew(Duration interval) {
		if (state.get() != State.HELD || !renewing.compareAndSet(false, true)) {
			return;
		}
		long start = nanoClock.getAsLong();
		try {
			if (store.call(key, "renew", () -> lease.extend(timeout))) {
				expiresAtNanos = start + timeout.toNanos();
				events.renewed(this);
			}
			else {
				markLost(null);
			}
		}
		catch (RuntimeException ex) {
			if (expiresAtNanos - nanoClock.getAsLong() <= interval.toNanos()) {
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

	private void markLost(@Nullable Throwable cause) {
		if (state.compareAndSet(State.HELD, State.LOST)) {
			cancelRenewal();
			notifyLost(new LockLostException(key(), "Lock '" + key() + "' was lost: "
					+ (cause != null ? "renewal failed: " + cause.getMessage() : "another owner or no lock in the store"),
					cause));
		}
	}

	private void notifyLost(LockLostException cause) {
		logger.warn("Lock '" + key() + "' was lost (fencing token " + fencingToken() + ")");
		events.lost(this, cause);
		for (Runnable callback : lostCallbacks) {
			try {
				callback.run();
			}
			catch (RuntimeException ex) {
				logger.warn("Lock-lost callback for '" + key() + "' failed", ex);
			}
		}
	}

	private void cancelRenewal() {
		ScheduledFuture<?> future = renewal;
		if (future != null) {
			future.cancel(false);
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
