package dev.distlock.core.internal;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;
import org.springframework.util.backoff.BackOffExecution;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockOptions;
import dev.distlock.core.spi.Acquisition;
import dev.distlock.core.spi.Interrupts;

/**
 * The one place that waits: attempts, retries, Spring {@link org.springframework.util.backoff.BackOff} delays, the
 * overall wait limit, and the interrupt rules. The caller drives it and makes the attempts itself:
 * <pre>
 * WaitLoop loop = WaitLoop.start(key, options, nanoClock, acquisition);
 * try {
 *     while (loop.next()) {
 *         try { result = tryOnce(loop.attemptNanos(), loop.startNanos()); }
 *         catch (RuntimeException ex) { throw loop.failed(ex); }
 *         if (result != null) { return result; }
 *     }
 * }
 * finally {
 *     loop.close();
 * }
 * </pre>
 * A wait is woken by the provider's {@link Acquisition} (a release signal, a hand-off) when there is one, else it
 * sleeps.
 * <p>Rules: {@code retries} is exact (at most {@code 1 + retries} attempts, whatever woke them), except that an
 * acquisition with a {@link Acquisition#longestWait()} shorter than the backoff's delay is tried again at least that
 * often (those attempts keep its place in the store, use up no retry and are not counted in {@link #attempts()}, which
 * is the first attempt and the retries: exactly {@code 1 + retries} when every retry is used up); no wait outlasts
 * {@code maxWait}; a thread
 * interrupted before the first attempt sends nothing; an interrupt ends the wait with a
 * {@link LockAcquisitionException} and the flag kept; the acquisition is closed exactly once, with the flag cleared,
 * so its cleanup reaches the store.
 */
public final class WaitLoop {

	private final String key;

	private final LockOptions options;

	private final LongSupplier nanoClock;

	private @Nullable Acquisition acquisition;

	private final long startNanos;

	private final long maxWaitNanos;

	private int retriesLeft;

	private @Nullable BackOffExecution backOff;

	/** The first attempt and the retries made; not the attempts within a delay that keep an acquisition's place. */
	private int attempts;

	/** Every attempt, those that keep a place included. */
	private int tries;

	private long attemptNanos;

	/** Whether a backoff delay is under way, cut into steps of the acquisition's longest wait. */
	private boolean waiting;

	private long waitUntilNanos;

	private boolean closed;

	private WaitLoop(String key, LockOptions options, LongSupplier nanoClock, @Nullable Acquisition acquisition) {
		this.key = key;
		this.options = options;
		this.nanoClock = nanoClock;
		this.acquisition = acquisition;
		this.startNanos = nanoClock.getAsLong();
		this.maxWaitNanos = options.maxWait() != null ? options.maxWait().toNanos() : Long.MAX_VALUE;
		this.retriesLeft = options.retries();
	}

	/**
	 * Starts one acquisition's attempts and waits, now by {@code nanoClock}.
	 * @param key the lock key (or keys) for the errors
	 * @param acquisition what wakes the waits and is closed at the end, or null to sleep between attempts
	 */
	public static WaitLoop start(String key, LockOptions options, LongSupplier nanoClock,
			@Nullable Acquisition acquisition) {
		return new WaitLoop(key, options, nanoClock, acquisition);
	}

	/**
	 * Waits until the next attempt is due and counts it; call it before each attempt, the first included.
	 * @return true to make an attempt now, false when retries ran out, the backoff stopped or {@code maxWait} passed
	 * @throws LockAcquisitionException if the thread is interrupted before the first attempt or while waiting
	 */
	public boolean next() {
		boolean keepsPlace = false;
		try {
			if (tries == 0) {
				if (Thread.currentThread().isInterrupted()) {
					throw new InterruptedException("interrupted before the first attempt");
				}
			}
			else {
				if (!waiting && !startWait()) {
					return false;
				}
				awaitStep();
				// Still within the retry's delay: this attempt only keeps the acquisition's place.
				keepsPlace = waiting;
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw interrupted(ex);
		}
		// The first attempt starts as the loop does (the loop was just started; an earlier start is the safe side for a
		// lease counted from it): one clock read fewer on every call.
		attemptNanos = tries == 0 ? startNanos : nanoClock.getAsLong();
		tries++;
		if (!keepsPlace) {
			attempts++;
		}
		return true;
	}

	/**
	 * The error an attempt failed with, as the caller should throw it: that of an interrupted thread ends the wait as
	 * an interrupt, a {@link LockAcquisitionException} with the error as its cause.
	 */
	public RuntimeException failed(RuntimeException error) {
		return Thread.currentThread().isInterrupted() ? interrupted(error) : error;
	}

	/**
	 * Ends the loop: closes the acquisition, once, with the thread's interrupt flag cleared (and then restored).
	 */
	public void close() {
		if (!closed) {
			closed = true;
			Acquisition started = acquisition;
			if (started != null) {
				Interrupts.uninterruptibly(started::close);
			}
		}
	}

	/**
	 * Hands the loop the acquisition a refused first attempt left
	 * ({@link dev.distlock.core.spi.WaitingLockProvider#start}): it wakes the waits from now on and is closed at the
	 * end, as one given to {@link #start} is.
	 */
	public void waitOn(Acquisition acquisition) {
		this.acquisition = acquisition;
	}

	/** The acquisition that wakes the waits, or null while there is none. */
	public @Nullable Acquisition acquisition() {
		return acquisition;
	}

	/** When the current attempt started, by the loop's clock; the first attempt's is the loop's start. */
	public long attemptNanos() {
		return attemptNanos;
	}

	/** When the loop started, by its clock. */
	public long startNanos() {
		return startNanos;
	}

	/**
	 * How many attempts were made so far: the first and the retries, as {@code retries} counts them; the attempts
	 * within a retry's delay that keep an acquisition's place (its {@link Acquisition#longestWait()}) are not counted.
	 */
	public int attempts() {
		return attempts;
	}

	/** How long the loop has run. */
	public Duration waited() {
		return Duration.ofNanos(nanoClock.getAsLong() - startNanos);
	}

	/**
	 * Starts the wait before the next retry, if one is left and the backoff and {@code maxWait} allow it.
	 */
	private boolean startWait() {
		long waitLeft = maxWaitNanos - (nanoClock.getAsLong() - startNanos);
		if (retriesLeft == 0 || waitLeft <= 0) {
			return false;
		}
		retriesLeft--;
		if (backOff == null) {
			backOff = options.backOff().start();
		}
		long delayMillis = backOff.nextBackOff();
		if (delayMillis == BackOffExecution.STOP) {
			return false;
		}
		long waitNanos = Math.min(TimeUnit.MILLISECONDS.toNanos(delayMillis), waitLeft);
		waitUntilNanos = nanoClock.getAsLong() + waitNanos;
		waiting = true;
		return true;
	}

	/**
	 * Waits one step towards the retry: the rest of the delay, or the acquisition's longest wait when the rest is
	 * longer; the attempt after a step before the last keeps the acquisition's place and uses up no retry.
	 */
	private void awaitStep() throws InterruptedException {
		long left = waitUntilNanos - nanoClock.getAsLong();
		// Asked at each step: an acquisition's longest wait may change with what its last attempt found.
		Acquisition started = acquisition;
		Duration longestWait = started != null ? started.longestWait() : null;
		if (longestWait == null || left <= longestWait.toNanos()) {
			waiting = false;
			if (left > 0) {
				await(Duration.ofNanos(left));
			}
		}
		else {
			await(longestWait);
		}
	}

	private void await(Duration max) throws InterruptedException {
		Acquisition started = acquisition;
		if (started != null) {
			started.awaitSignal(max);
		}
		else {
			TimeUnit.NANOSECONDS.sleep(max.toNanos());
		}
	}

	private LockAcquisitionException interrupted(Exception cause) {
		return new LockAcquisitionException(key, "Interrupted while acquiring lock '" + key + "' after " + attempts
				+ " attempt(s)", attempts, waited(), cause);
	}

}
