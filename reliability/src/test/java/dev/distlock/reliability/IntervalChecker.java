package dev.distlock.reliability;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.distlock.reliability.worker.IntervalLog.Interval;

/**
 * Jepsen-style checks on critical sections from every process: sorted by start, no interval may begin before every
 * earlier one has ended, and fencing tokens must strictly increase in that order. It also counts how often the lock
 * passed from one worker process to another, which shows whether the processes really contended.
 */
final class IntervalChecker {

	private IntervalChecker() {
	}

	/**
	 * Checks the intervals and returns what was found.
	 */
	static Result check(List<Interval> intervals) {
		List<Interval> sorted = new ArrayList<>(intervals);
		sorted.sort(Comparator.comparingLong(Interval::start));
		List<String> overlaps = new ArrayList<>();
		List<String> tokenInversions = new ArrayList<>();
		int workerSwitches = 0;
		@Nullable Interval latestEnding = null;
		@Nullable Interval previous = null;
		for (Interval interval : sorted) {
			// Against the latest end so far, not just the previous interval: a long section can cover several short.
			// Touching counts: equal nanoTime readings cannot tell which section came first.
			if (latestEnding != null && interval.start() <= latestEnding.end()) {
				overlaps.add(latestEnding + " overlaps " + interval);
			}
			if (previous != null && interval.token() <= previous.token()) {
				tokenInversions.add(previous + " then " + interval);
			}
			if (previous != null && interval.worker() != previous.worker()) {
				workerSwitches++;
			}
			if (latestEnding == null || interval.end() > latestEnding.end()) {
				latestEnding = interval;
			}
			previous = interval;
		}
		return new Result(sorted.size(), overlaps, tokenInversions, workerSwitches);
	}

	/**
	 * What the check found.
	 * @param intervals how many intervals were checked
	 * @param overlaps each overlapping pair, described
	 * @param tokenInversions each pair whose tokens did not strictly increase, described
	 * @param workerSwitches how many consecutive intervals, by start, came from different workers
	 */
	record Result(int intervals, List<String> overlaps, List<String> tokenInversions, int workerSwitches) {
	}

}
