package dev.distlock.core.spi;

import java.time.Duration;

/**
 * Optional provider capability: wakes waiters when a key is released, so they need not poll.
 * {@link dev.distlock.core.LockTemplate} watches a key before it retries, so a release between a refused attempt and
 * the wait is never missed.
 */
public interface ReleaseNotifier {

	/**
	 * Starts watching the key. Close the returned watch when done waiting.
	 */
	Watch watch(String key);

	/**
	 * Whether watching the key costs no round trip now (for example, its channel is already subscribed). Then a caller
	 * that may wait starts watching before its first attempt, so a refused attempt already counts as waiting. The
	 * default is false: watch only after a refusal.
	 */
	default boolean isWatchFree(String key) {
		return false;
	}

	/**
	 * Starts watching on behalf of one acquisition that will retry. A provider that can hand a released lock straight
	 * to a waiting request (a queue of waiters in the store) overrides this; closing the watch then also withdraws the
	 * request from that queue. The default watches the key.
	 */
	default Watch watch(LockRequest request) {
		return watch(request.key());
	}

	/**
	 * A registration for release signals on one key.
	 */
	interface Watch extends AutoCloseable {

		/**
		 * Waits until the key is released or {@code max} has passed.
		 * @return true if a release signal arrived
		 */
		boolean await(Duration max) throws InterruptedException;

		/**
		 * Stops watching; never throws.
		 */
		@Override
		void close();

	}

}
