package dev.distlock.benchmarks.harness;

import org.HdrHistogram.Histogram;

/**
 * What one contention run measured.
 * @param clients how many independent clients competed for the key
 * @param cyclesPerSecond acquisitions per second within the window
 * @param cycles acquisitions within the window
 * @param handOff nanoseconds from a holder starting its unlock to a different client's lock call returning
 * @param waits nanoseconds from lock requested to lock returned
 * @param starved clients that never acquired within the window
 * @param violations times two clients held the lock at once (must be zero)
 */
public record ContentionResult(int clients, double cyclesPerSecond, long cycles, Histogram handOff, Histogram waits,
		int starved, long violations) {

	/**
	 * A percentile of the hand-off latency, in milliseconds.
	 */
	public double handOffMillis(double percentile) {
		return millis(handOff, percentile);
	}

	/**
	 * A percentile of the wait, in milliseconds.
	 */
	public double waitMillis(double percentile) {
		return millis(waits, percentile);
	}

	private static double millis(Histogram histogram, double percentile) {
		if (histogram.getTotalCount() == 0) {
			return Double.NaN;
		}
		long nanos = percentile >= 100 ? histogram.getMaxValue() : histogram.getValueAtPercentile(percentile);
		return nanos / 1e6;
	}

}
