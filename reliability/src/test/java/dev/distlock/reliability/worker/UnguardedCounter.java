package dev.distlock.reliability.worker;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * The fuzz oracle: a counter in a file, read then written with no locking of its own, so only the distributed lock
 * keeps concurrent increments from losing updates across processes.
 */
public final class UnguardedCounter {

	private final Path path;

	/**
	 * A counter stored in the file, created at zero when absent.
	 */
	public UnguardedCounter(Path path) {
		this.path = path;
	}

	/**
	 * Reads the value, yields so a racing process could interleave, and writes value + 1.
	 */
	public long increment() {
		try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw")) {
			long value = file.length() >= Long.BYTES ? file.readLong() : 0;
			Thread.yield();
			file.seek(0);
			file.writeLong(value + 1);
			return value + 1;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
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
