package dev.distlock.reliability.worker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The critical sections one worker ran, kept in memory and written once at the end so logging never widens the
 * window it measures. Times are {@link System#nanoTime()}: on Linux every JVM on one machine reads the same
 * CLOCK_MONOTONIC, so intervals from different processes compare directly.
 */
public final class IntervalLog {

	private final List<Interval> intervals = new ArrayList<>();

	/**
	 * Records one critical section.
	 */
	public synchronized void record(long token, long startNanos, long endNanos) {
		intervals.add(new Interval(token, startNanos, endNanos));
	}

	/**
	 * Writes every interval, one {@code token start end} line each.
	 */
	public synchronized void writeTo(Path file) {
		List<String> lines = intervals.stream().map(i -> i.token() + " " + i.start() + " " + i.end()).toList();
		try {
			Files.write(file, lines);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Reads a file written by {@link #writeTo(Path)}.
	 */
	public static List<Interval> read(Path file) {
		try {
			return Files.readAllLines(file).stream().filter(line -> !line.isBlank()).map(line -> {
				String[] parts = line.split(" ");
				return new Interval(Long.parseLong(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2]));
			}).toList();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * One critical section.
	 * @param token the fencing token it ran under
	 * @param start System.nanoTime() after the lock was acquired
	 * @param end System.nanoTime() before it was released
	 */
	public record Interval(long token, long start, long end) {
	}

}
