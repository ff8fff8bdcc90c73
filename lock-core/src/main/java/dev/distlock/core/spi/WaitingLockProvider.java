package dev.distlock.core.spi;

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

}
