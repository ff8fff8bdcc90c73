package dev.distlock.reliability;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Measures how late this machine wakes a sleeping thread while a test waits, so that a bound can allow for a loaded
 * machine by what it measured instead of by a guess: a thread sleeps {@link #TICK} again and again and keeps the
 * longest overshoot. On a quiet machine that is a few milliseconds, and the bound stays as tight as it was.
 */
final class SchedulingDelay implements AutoCloseable {

	/** The probe's sleep, as long as a worker's poll delay. */
	static final Duration TICK = Duration.ofMillis(20);

	private final AtomicLong longestNanos = new AtomicLong();

	private final Thread probe;

	private volatile boolean stopped;

	private SchedulingDelay() {
		this.probe = new Thread(this::probe, "scheduling-delay-probe");
		this.probe.setDaemon(true);
		this.probe.start();
	}

	/** Starts measuring. */
	static SchedulingDelay measure() {
		return new SchedulingDelay();
	}

	/** The longest overshoot seen so far. */
	Duration longest() {
		return Duration.ofNanos(longestNanos.get());
	}

	private void probe() {
		while (!stopped) {
			long start = System.nanoTime();
			try {
				TimeUnit.NANOSECONDS.sleep(TICK.toNanos());
			}
			catch (InterruptedException ex) {
				return;
			}
			long overshoot = System.nanoTime() - start - TICK.toNanos();
			longestNanos.accumulateAndGet(overshoot, Math::max);
		}
	}

	@Override
	public void close() {
		stopped = true;
		probe.interrupt();
	}

}
