package dev.distlock.benchmarks.jdbc;

import java.time.Duration;

/**
 * The one retry delay of the JDBC arms that do not wait by themselves (the floor, ShedLock, distlock's provider
 * alone): each retries a held lock at this interval, as the Mongo arms do.
 */
final class JdbcPause {

	/** The retry interval while a lock is held. */
	static final Duration RETRY_DELAY = Duration.ofMillis(1);

	private JdbcPause() {
	}

	static void retryDelay() {
		sleep(RETRY_DELAY.toMillis());
	}

	static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting", ex);
		}
	}

}
