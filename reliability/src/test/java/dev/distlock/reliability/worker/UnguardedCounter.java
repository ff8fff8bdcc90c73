package dev.distlock.reliability.worker;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The fuzz oracle: a counter in a file, read, slept on, then written, with no locking of its own, so only the
 * distributed lock keeps concurrent increments from losing updates across processes.
 */
public final class UnguardedCounter {

	/**
	 * The pause between read and write. It holds the race window open long enough that two holders at once would lose
	 * an update almost surely; 1 ms keeps the fuzz's 6,000 serialized sections to a few seconds.
	 */
	static final Duration RACE_WINDOW = Duration.ofMillis(1);

	private final Path path;

	/**
	 * A counter stored in the file, created at zero when absent.
	 */
	public UnguardedCounter(Path path) {
		this.path = path;
	}

	/**
	 * Reads the value, sleeps for {@link #RACE_WINDOW} so a racing holder would read the same value, and writes
	 * value + 1.
	 */
	public long increment() {
		try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw")) {
			long value = file.length() >= Long.BYTES ? file.readLong() : 0;
			Thread.sleep(RACE_WINDOW.toMillis());
			file.seek(0);
			file.writeLong(value + 1);
			return value + 1;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			// Nothing was written: fail the section rather than count a write that did not happen.
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted between read and write of " + path, ex);
		}
	}

	/**
	 * The current value.
	 */
	public long value() {
		try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "r")) {
			return file.length() >= Long.BYTES ? file.readLong() : 0;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
