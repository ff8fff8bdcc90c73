package dev.distlock.core.spi;

import java.time.Duration;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * One acquisition that may retry, from a {@link WaitingLockProvider}. The template calls {@link #tryOnce()} per
 * attempt, {@link #awaitSignal(Duration)} between attempts, and {@link #close()} exactly once at the end, whatever
 * happened, with the thread's interrupt flag cleared, so a queue entry or a lock granted to a caller that has gone
 * is always withdrawn.
 */
public non-sealed interface Acquisition extends AutoCloseable, FirstAttempt {

	/**
	 * Makes one attempt.
	 * @return the granted lock, or empty while others hold it
	 * @throws dev.distlock.core.LockStoreException if the store could not be asked; the lock may have been granted
	 * anyway, which {@link #close()} then undoes
	 */
	Optional<Granted> tryOnce();

	/**
	 * Waits until another attempt is worth making, or {@code max} has passed.
	 * @return true if a signal (a release, a hand-off, a new subscription) ended the wait early
	 */
	boolean awaitSignal(Duration max) throws InterruptedException;

	/**
	 * The longest one wait may last before the next attempt, for a store that keeps a waiter's place (a waiting mark,
	 * a queue entry) only while attempts refresh it; null (the default) for no limit. The template then makes an
	 * attempt at least this often, whatever the backoff says, without using up a retry or counting it among the
	 * attempts it reports.
	 */
	default @Nullable Duration longestWait() {
		return null;
	}

	/**
	 * Ends the acquisition: withdraws any place it holds in the store, and releases a lock granted under its token
	 * that {@link #tryOnce()} did not return. Never throws; returns within the store's command timeout.
	 */
	@Override
	void close();

	/**
	 * A granted lock.
	 * @param lease the lease
	 * @param leaseStartNanos the {@link System#nanoTime()} from which this JVM may count the lease: the store started
	 * it no earlier (a hand-off to a queued waiter started it when the release ran, after the waiter's queued attempt
	 * was sent)
	 */
	record Granted(Lease lease, long leaseStartNanos) implements FirstAttempt {
	}

}
