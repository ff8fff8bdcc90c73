package dev.distlock.core.internal;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;
import org.springframework.util.backoff.BackOffExecution;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockOptions;
import dev.distlock.core.spi.Interrupts;

/**
 * The one place that waits: attempts, retries, Spring {@link org.springframework.util.backoff.BackOff} delays, the
 * overall wait limit, and the interrupt rules. What a wait is woken by (nothing, a release signal, a hand-off) is the
 * {@link Waiter}'s business.
 * <p>Rules: {@code retries} is exact (at most {@code 1 + retries} attempts, whatever woke them), except that a
 * waiter with a {@link Waiter#longestWait()} shorter than the backoff's delay is tried again at least that often
 * (those attempts keep its place in the store and use up no retry); no wait outlasts {@code maxWait}; a thread interrupted before the first attempt sends nothing; an interrupt ends the wait with a
 * {@link LockAcquisitionException} and the flag kept; the waiter is closed exactly once, with the flag cleared, so
 * its cleanup reaches the store.
 */
public final class WaitLoop {

	private WaitLoop() {
	}

	/**
	 * One acquisition's attempts and waits.
	 */
	public interface Waiter<T> {

		/**
		 * Tries once; null means "not yet".
		 * @param attemptNanos when this attempt started, by the loop's clock
		 * @param loopNanos when the first attempt started
		 */
		@Nullable T tryOnce(long attemptNanos, long loopNanos);

		/**
		 * Waits until another attempt is worth making or {@code max} has passed; the default sleeps.
		 */
		default void awaitSignal(Duration max) throws InterruptedException {
			TimeUnit.NANOSECONDS.sleep(max.toNanos());
		}

		/**
		 * The longest one wait may last before the next attempt (see
		 * {@link dev.distlock.core.spi.Acquisition#longestWait()}); null, the default, for no limit.
		 */
		default @Nullable Duration longestWait() {
			return null;
		}

		/**
		 * Ends the acquisition; called once, with the interrupt flag cleared. The default does nothing.
		 */
		default void close() {
		}

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
	 * Attempts until success, retries run out, the backoff stops or {@code maxWait} passes.
	 * @throws LockAcquisitionException if the thread is interrupted before or while waiting
	 */
	public static <T> Outcome<T> run(String key, LockOptions options, LongSupplier nanoClock, Waiter<T> waiter) {
		long start = nanoClock.getAsLong();
		long maxWait = options.maxWait() != null ? options.maxWait().toNanos() : Long.MAX_VALUE;
		int retriesLeft = options.retries();
		int[] attempts = { 0 };
		BackOffExecution backOff = null;
		try {
			if (Thread.currentThread().isInterrupted()) {
				throw new InterruptedException("interrupted before the first attempt");
			}
			while (true) {
				T value = attempt(key, waiter, nanoClock, start, attempts);
				if (value != null) {
					return new Outcome<>(value, attempts[0], elapsed(nanoClock, start));
				}
				long waitLeft = maxWait - (nanoClock.getAsLong() - start);
				if (retriesLeft == 0 || waitLeft <= 0) {
					break;
				}
				retriesLeft--;
				if (backOff == null) {
					backOff = options.backOff().start();
				}
				long delayMillis = backOff.nextBackOff();
				if (delayMillis == BackOffExecution.STOP) {
					break;
				}
				long waitNanos = Math.min(TimeUnit.MILLISECONDS.toNanos(delayMillis), waitLeft);
				value = await(key, waiter, nanoClock, start, attempts, nanoClock.getAsLong() + waitNanos);
				if (value != null) {
					return new Outcome<>(value, attempts[0], elapsed(nanoClock, start));
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw interrupted(key, attempts[0], nanoClock, start, ex);
		}
		finally {
			Interrupts.uninterruptibly(waiter::close);
		}
		return new Outcome<>(null, attempts[0], elapsed(nanoClock, start));
	}

	/** One attempt, counted; a store error of an interrupted thread ends the wait as an interrupt. */
	private static <T> @Nullable T attempt(String key, Waiter<T> waiter, LongSupplier nanoClock, long start,
			int[] attempts) {
		long now = nanoClock.getAsLong();
		attempts[0]++;
		try {
			return waiter.tryOnce(now, start);
		}
		catch (RuntimeException ex) {
			if (Thread.currentThread().isInterrupted()) {
				throw interrupted(key, attempts[0], nanoClock, start, ex);
			}
			throw ex;
		}
	}

	/**
	 * Waits until {@code untilNanos}, in steps no longer than the waiter's {@link Waiter#longestWait()}, with an
	 * attempt after each step but the last that keeps the waiter's place in the store (it uses up no retry).
	 * @return the value of such an attempt that succeeded, else null
	 */
	private static <T> @Nullable T await(String key, Waiter<T> waiter, LongSupplier nanoClock, long start,
			int[] attempts, long untilNanos) throws InterruptedException {
		Duration longest = waiter.longestWait();
		while (true) {
			long left = untilNanos - nanoClock.getAsLong();
			if (longest == null || left <= longest.toNanos()) {
				if (left > 0) {
					waiter.awaitSignal(Duration.ofNanos(left));
				}
				return null;
			}
			waiter.awaitSignal(longest);
			T value = attempt(key, waiter, nanoClock, start, attempts);
			if (value != null) {
				return value;
			}
		}
	}

	private static LockAcquisitionException interrupted(String key, int attempts, LongSupplier nanoClock, long start,
			Exception cause) {
		return new LockAcquisitionException(key, "Interrupted while acquiring lock '" + key + "' after " + attempts
				+ " attempt(s)", attempts, elapsed(nanoClock, start), cause);
	}

	private static Duration elapsed(LongSupplier nanoClock, long start) {
		return Duration.ofNanos(nanoClock.getAsLong() - start);
	}

}
