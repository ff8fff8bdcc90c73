package dev.distlock.benchmarks.mongo;

import java.time.Duration;

/**
 * The one retry delay every Mongo arm uses while a lock is held, so their contention figures compare like with like.
 */
final class MongoPause {

	/** No Mongo arm has a release signal; each polls at this interval. */
	static final Duration RETRY_DELAY = Duration.ofMillis(1);

	private MongoPause() {
	}

	static void retryDelay() {
		try {
			Thread.sleep(RETRY_DELAY.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for a lock", ex);
		}
	}

}
