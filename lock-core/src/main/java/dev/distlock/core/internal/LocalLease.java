package dev.distlock.core.internal;

import java.time.Duration;
import java.util.function.LongSupplier;

import dev.distlock.core.spi.LockInfo;

/**
 * A handle's own count of its lease, on the local monotonic clock. It is counted from before the call that took,
 * extended or renewed the lock was sent, so it runs out no later than the store's lease. A lock without expiry has no
 * lease until an extend gives it one.
 */
final class LocalLease {

	private final LongSupplier nanoClock;

	private volatile long expiresAtNanos;

	/** False for a lock without expiry until an extend gives it a lease. */
	private volatile boolean expires;

	/**
	 * A lease of {@code lease} from {@code startNanos}, or none when {@code expires} is false.
	 */
	LocalLease(LongSupplier nanoClock, long startNanos, Duration lease, boolean expires) {
		this.nanoClock = nanoClock;
		this.expiresAtNanos = startNanos + lease.toNanos();
		this.expires = expires;
	}

	/** Whether the lease has not run out (always, for a lock without expiry). */
	boolean live() {
		return !expires || nanoClock.getAsLong() - expiresAtNanos < 0;
	}

	/** Whether the lock has a lease: false for a lock without expiry that nothing gave one yet. */
	boolean expires() {
		return expires;
	}

	/** What is left of the lease, never negative; {@link LockInfo#NO_EXPIRY} for a lock without expiry. */
	Duration remaining() {
		if (!expires) {
			return LockInfo.NO_EXPIRY;
		}
		return Duration.ofNanos(Math.max(0, expiresAtNanos - nanoClock.getAsLong()));
	}

	/** Whether the lease runs out within {@code interval} from now. */
	boolean runsOutWithin(Duration interval) {
		return expiresAtNanos - nanoClock.getAsLong() <= interval.toNanos();
	}

	/**
	 * Counts a lease of {@code lease} from {@code startNanos}: the store took an extend or a renewal sent then. A lock
	 * without expiry has a lease from now on, as in the store.
	 */
	void countFrom(long startNanos, Duration lease) {
		expiresAtNanos = startNanos + lease.toNanos();
		expires = true;
	}

}
