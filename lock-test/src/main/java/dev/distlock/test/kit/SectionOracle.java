package dev.distlock.test.kit;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The seams suite's exclusion oracle: an unguarded read-sleep-write counter plus a count of bodies inside at once.
 * Only mutual exclusion keeps {@link #count()} equal to {@link #sections()} and {@link #maxInside()} at one. A section
 * keeps going when its thread is interrupted (it re-sets the flag), so an interrupt never shortens the window.
 */
public final class SectionOracle {

	private final AtomicInteger inside = new AtomicInteger();

	private final AtomicInteger maxInside = new AtomicInteger();

	private final AtomicInteger sections = new AtomicInteger();

	private volatile long count;

	/**
	 * One section: read, pause about {@code pauseMillis}, write read + 1.
	 */
	public void section(long pauseMillis) {
		int now = inside.incrementAndGet();
		maxInside.accumulateAndGet(now, Math::max);
		try {
			long read = count;
			pause(pauseMillis);
			count = read + 1;
			sections.incrementAndGet();
		}
		finally {
			inside.decrementAndGet();
		}
	}

	/**
	 * The counter: equal to {@link #sections()} when no two sections overlapped.
	 */
	public long count() {
		return count;
	}

	/**
	 * How many sections completed.
	 */
	public int sections() {
		return sections.get();
	}

	/**
	 * The most sections seen inside at once: 1 when exclusion held.
	 */
	public int maxInside() {
		return maxInside.get();
	}

	private static void pause(long millis) {
		long end = System.nanoTime() + millis * 1_000_000L;
		boolean interrupted = false;
		long left;
		while ((left = end - System.nanoTime()) > 0) {
			try {
				Thread.sleep(Math.max(1, left / 1_000_000L));
			}
			catch (InterruptedException ex) {
				interrupted = true; // finish the section anyway: the lock must cover the whole body
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

}
