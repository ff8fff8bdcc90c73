package dev.distlock.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The machine's 1-minute load average, sampled every 10 s from {@code /proc/loadavg} by a daemon thread while the run
 * lasts, so the report says how busy the machine was (on a shared machine, other processes weigh on the figures).
 */
final class LoadAverage {

	private double min = Double.NaN;

	private double max = Double.NaN;

	private int samples;

	/** Starts sampling now (one sample at once). */
	static LoadAverage start() {
		LoadAverage load = new LoadAverage();
		load.sample();
		Thread thread = new Thread(() -> {
			while (true) {
				try {
					Thread.sleep(10_000);
				}
				catch (InterruptedException ex) {
					return;
				}
				load.sample();
			}
		}, "load-average");
		thread.setDaemon(true);
		thread.start();
		return load;
	}

	private synchronized void sample() {
		try {
			double now = Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+")[0]);
			min = Double.isNaN(min) ? now : Math.min(min, now);
			max = Double.isNaN(max) ? now : Math.max(max, now);
			samples++;
		}
		catch (IOException | RuntimeException ex) {
			// not Linux: no figure
		}
	}

	/** The range seen so far, for the report. */
	synchronized String describe() {
		return samples == 0 ? "unknown"
				: String.format(Locale.ROOT, "%.2f to %.2f (1-minute load average, %d samples 10 s apart)", min, max,
						samples);
	}

}
