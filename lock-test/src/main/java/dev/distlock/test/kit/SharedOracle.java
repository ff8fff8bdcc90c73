package dev.distlock.test.kit;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The exclusion oracle for a shared lock with writers: counts readers and writers inside at once. A writer must find
 * nobody else inside for its whole section, and readers never exceed the shared limit; the kit asserts both.
 */
public final class SharedOracle {

	private final AtomicInteger readers = new AtomicInteger();

	private final AtomicInteger writers = new AtomicInteger();

	private final AtomicInteger maxReaders = new AtomicInteger();

	private final AtomicInteger writerOverlaps = new AtomicInteger();

	private final AtomicInteger readerSections = new AtomicInteger();

	private final AtomicInteger writerSections = new AtomicInteger();

	/**
	 * One section of about {@code pauseMillis}, as a reader or as a writer; keeps going when interrupted.
	 */
	public void section(boolean reader, long pauseMillis) {
		if (reader) {
			maxReaders.accumulateAndGet(readers.incrementAndGet(), Math::max);
			if (writers.get() > 0) {
				writerOverlaps.incrementAndGet();
			}
			try {
				pause(pauseMillis);
				readerSections.incrementAndGet();
			}
			finally {
				readers.decrementAndGet();
			}
			return;
		}
		if (writers.incrementAndGet() > 1 || readers.get() > 0) {
			writerOverlaps.incrementAndGet();
		}
		try {
			pause(pauseMillis);
			if (readers.get() > 0) {
				writerOverlaps.incrementAndGet();
			}
			writerSections.incrementAndGet();
		}
		finally {
			writers.decrementAndGet();
		}
	}

	/** The most readers seen inside at once. */
	public int maxReaders() {
		return maxReaders.get();
	}

	/** Sections where a writer and anyone else were inside at once: 0 when exclusion held. */
	public int writerOverlaps() {
		return writerOverlaps.get();
	}

	/** Reader sections completed. */
	public int readerSections() {
		return readerSections.get();
	}

	/** Writer sections completed. */
	public int writerSections() {
		return writerSections.get();
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
