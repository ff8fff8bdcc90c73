package dev.distlock.core.spi;

/**
 * Optional provider capability: a store that can wait better than polling, by waking waiters on release or by
 * handing a released lock straight to a queued waiter. {@link dev.distlock.core.LockTemplate} still owns retries,
 * backoff, the overall wait limit and the interrupt rules; the provider owns only what it waits on.
 */
public interface WaitingLockProvider extends LockProvider {

	/**
	 * Starts one acquisition that may retry. Cheap: it sends nothing to the store by itself.
	 */
	Acquisition begin(LockRequest request);

}
