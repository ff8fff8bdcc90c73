package dev.distlock.core.spi;

import java.util.Optional;

/**
 * Optional provider capability: a store that can wait better than polling, by waking waiters on release or by
 * handing a released lock straight to a queued waiter. {@link dev.distlock.core.LockTemplate} still owns retries,
 * backoff, the overall wait limit and the interrupt rules; the provider owns only what it waits on.
 *
 * <p>Writer priority comes with it: while an exclusive {@link Acquisition} waits for a key, new shared holders of that
 * key are refused, as {@link java.util.concurrent.locks.ReentrantReadWriteLock} does, so a stream of overlapping
 * readers cannot starve a writer. The writer waits for the readers already in, and no longer than its own wait limit;
 * plain attempts ({@link #tryAcquire(LockRequest)}) leave no mark.
 */
public interface WaitingLockProvider extends LockProvider {

	/**
	 * Starts one acquisition that may retry. Cheap: it sends nothing to the store by itself.
	 */
	Acquisition begin(LockRequest request);

	/**
	 * Starts one acquisition that may retry with its first attempt, as {@link #begin} and then
	 * {@link Acquisition#tryOnce()} would: the granted lock, or the acquisition that goes on from the refused attempt
	 * (with the place in the store that attempt took), to retry and close as usual. A provider overrides it to make
	 * nothing for waiting when the first attempt wins, as it usually does.
	 * @throws dev.distlock.core.LockStoreException if the store could not be asked; nothing is then left to close (a
	 * lock the attempt may have been granted anyway, and its place in the store, were withdrawn)
	 */
	default FirstAttempt start(LockRequest request) {
		Acquisition acquisition = begin(request);
		Optional<Acquisition.Granted> granted;
		try {
			granted = acquisition.tryOnce();
		}
		catch (RuntimeException ex) {
			Interrupts.uninterruptibly(acquisition::close);
			throw ex;
		}
		if (granted.isEmpty()) {
			return acquisition;
		}
		Interrupts.uninterruptibly(acquisition::close);
		return granted.get();
	}

}
