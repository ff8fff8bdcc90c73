package dev.distlock.core.internal;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.util.backoff.BackOffExecution;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockOptions;
import dev.distlock.core.spi.ReleaseNotifier;

/**
 * The one place that waits: attempts, retries, Spring {@link org.springframework.util.backoff.BackOff} delays, the
 * overall wait limit, and release signals when the provider offers them.
 */
public final class WaitLoop {

	private static final Log logger = LogFactory.getLog(WaitLoop.class);

	private WaitLoop() {
	}

	/**
	 * One attempt; null means "not yet".
	 */
	@FunctionalInterface
	public interface Attempt<T> {

		/**
		 * Tries once.
		 * @param attemptNanos when this attempt started, by the loop's clock
		 * @param loopNanos when the first attempt started
		 */
		@Nullable T tryOnce(long attemptNanos, long loopNanos);

	}

	/**
	 * What the loop ended with.
	 * @param value the successful attempt's result, or null when every attempt failed
	 * @param attempts how many attempts were made
	 * @param waited how long the loop ran
	 */
	public record Outcome<T>(@Nullable T value, int attempts, Duration waited) {
	}

	/**
	 * Attempts until success, retries run out, the backoff stops or {@code maxWait} passes. With a notifier, the key is
	 * watched after the first refusal and then tried again at once, so a release in between is never missed; waits end
	 * early on a release signal. A notifier that fails falls back to plain backoff.
	 * @throws LockAcquisitionException if the waiting thread is interrupted
	 */
	public static <T> Outcome<T> run(String key, LockOptions options, @Nullable ReleaseNotifier notifier,
			LongSupplier nanoClock, Attempt<T> attempt) {
		long start = nanoClock.getAsLong();
		long maxWait = options.maxWait() != null ? options.maxWait().toNanos() : Long.MAX_VALUE;
		int retriesLeft = options.retries();
		int attempts = 0;
		BackOffExecution backOff = null;
		ReleaseNotifier.Watch watch = null;
		boolean watching = notifier != null;
		if (watching && retriesLeft > 0 && maxWait > 0 && notifier.isWatchFree(key)) {
			// Free to watch now: a refusal of the first attempt then already counts as waiting, so no re-check is owed.
			watch = openWatch(notifier, key);
			watching = watch != null;
		}
		try {
			while (true) {
				long now = nanoClock.getAsLong();
				attempts++;
				T value = attempt.tryOnce(now, start);
				if (value != null) {
					return new Outcome<>(value, attempts, Duration.ofNanos(nanoClock.getAsLong() - start));
				}
				long waitLeft = maxWait - (nanoClock.getAsLong() - start);
				if (retriesLeft == 0 || waitLeft <= 0) {
					break;
				}
				if (watching && watch == null) {
					watch = openWatch(notifier, key);
					if (watch != null) {
						continue; // the immediate re-check after subscribing does not use up a retry
					}
					watching = false;
				}
				retriesLeft--;
				if (backOff == null) {
					backOff = options.backOff().start();
				}
				long delayMillis = backOff.nextBackOff();
				if (delayMillis == BackOffExecution.STOP) {
					break;
				}
				long pause = Math.min(TimeUnit.MILLISECONDS.toNanos(delayMillis), waitLeft);
				if (watch != null) {
					watch.await(Duration.ofNanos(pause));
				}
				else {
					TimeUnit.NANOSECONDS.sleep(pause);
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockAcquisitionException(key, attempts, Duration.ofNanos(nanoClock.getAsLong() - start), ex);
		}
		finally {
			if (watch != null) {
				watch.close();
			}
		}
		return new Outcome<>(null, attempts, Duration.ofNanos(nanoClock.getAsLong() - start));
	}

	private static ReleaseNotifier.@Nullable Watch openWatch(ReleaseNotifier notifier, String key) {
		try {
			return notifier.watch(key);
		}
		catch (RuntimeException ex) {
			logger.debug("Release signals unavailable for '" + key + "'; polling with backoff", ex);
			return null;
		}
	}

}
