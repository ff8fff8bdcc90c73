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

	private final int worker;

	private final List<Interval> intervals = new ArrayList<>();

	/**
	 * A log for the worker process with this id, which every interval carries.
	 */
	public IntervalLog(int worker) {
		this.worker = worker;
	}

	/**
	 * Records one critical section.
	 */
	public synchronized void record(long token, long startNanos, long endNanos) {
		intervals.add(new Interval(worker, token, startNanos, endNanos));
	}

	/**
	 * Writes every interval, one {@code worker token start end} line each.
	 */
	public synchronized void writeTo(Path file) {
		List<String> lines = intervals.stream()
			.map(i -> i.worker() + " " + i.token() + " " + i.start() + " " + i.end())
			.toList();
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
				return new Interval(Integer.parseInt(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2]),
						Long.parseLong(parts[3]));
			}).toList();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * One critical section.
	 * @param worker the id of the worker process that ran it
	 * @param token the fencing token it ran under
	 * @param start System.nanoTime() after the lock was acquired, before the counter was read
	 * @param end System.nanoTime() after the counter was written, before the lock was released
	 */
	public record Interval(int worker, long token, long start, long end) {
	}

}
