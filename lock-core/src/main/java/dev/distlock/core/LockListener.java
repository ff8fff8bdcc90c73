package dev.distlock.core;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * Lifecycle events of locks taken through a {@link LockTemplate}: for metrics, logs and the lock-lost signal. Methods
 * run on the calling or watchdog thread and must be quick; an exception from a listener is logged and ignored.
 */
public interface LockListener {

	/**
	 * A caller starts to acquire a lock or a group. Exactly one {@link #onAcquireEnded} follows on the same thread
	 * with the same {@code attempt} instance, whichever way the acquisition ends, and after every other event of the
	 * acquisition; acquisitions on one thread never interleave, so a listener may keep per-thread state between the
	 * two.
	 */
	default void onAcquireStarted(LockAttempt attempt) {
	}

	/**
	 * The acquisition begun by {@link #onAcquireStarted} ended, on the same thread.
	 * @param outcome how it ended
	 * @param attempts how many attempts it made, a failing one included: the first and the retries (not the attempts
	 * that only keep a waiter's place within a delay, {@link dev.distlock.core.spi.Acquisition#longestWait()})
	 * @param waited how long it took
	 */
	default void onAcquireEnded(LockAttempt attempt, LockAttempt.Outcome outcome, int attempts, Duration waited) {
	}

	/**
	 * A lock was acquired after {@link LockHandle#waited()}.
	 */
	default void onAcquired(LockHandle handle) {
	}

	/**
	 * A lock (or a group) could not be acquired after all attempts.
	 * @param skipped whether the caller skipped its work rather than failing
	 */
	default void onAcquireFailed(LockAttempt attempt, int attempts, Duration waited, boolean skipped) {
	}

	/**
	 * An acquire stopped because the store could not be asked; the caller gets the same error.
	 */
	default void onAcquireError(LockAttempt attempt, LockStoreException error) {
	}

	/**
	 * A lock was released after being held for {@code heldFor}.
	 */
	default void onReleased(LockHandle handle, Duration heldFor) {
	}

	/**
	 * A release failed; the handle is invalid either way.
	 */
	default void onReleaseFailed(LockHandle handle, DistributedLockException error) {
	}

	/**
	 * The watchdog extended a lease.
	 */
	default void onRenewed(LockHandle handle) {
	}

	/**
	 * A held lock was found lost: a renewal or release found another owner or no lock. Work done under it since the
	 * last successful renewal may overlap another holder's, so fencing-token checks matter here.
	 */
	default void onLost(LockHandle handle, LockLostException cause) {
	}

	/**
	 * Work guarded by these locks starts on the calling thread: the callback of
	 * {@link LockTemplate#execute(String, LockOptions, LockCallback)}, or a method run by
	 * {@link LockTemplate#openWorkScope(List)}. The returned scope is closed on the same thread when the work ends,
	 * before the locks are released; an observation listener makes the hold current in it, so spans of the work nest
	 * under the lock. The default opens nothing.
	 * @param handles one handle, or a group's members in key order
	 */
	default Scope onWorkStarted(List<LockHandle> handles) {
		return Scope.NONE;
	}

	/**
	 * A listener that only hears lost locks.
	 */
	static LockListener onLost(Consumer<LockHandle> callback) {
		return new LockListener() {
			@Override
			public void onLost(LockHandle handle, LockLostException cause) {
				callback.accept(handle);
			}
		};
	}

	/**
	 * What a listener opened for guarded work; closed once, on the thread that opened it.
	 */
	@FunctionalInterface
	interface Scope extends AutoCloseable {

		/**
		 * A scope that opened nothing.
		 */
		Scope NONE = () -> {
		};

		@Override
		void close();

	}

}
