package dev.distlock.reliability;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.distlock.reliability.worker.IntervalLog.Interval;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fuzz's oracle must itself be right: fed hand-made intervals, the checker reports every overlap and token
 * inversion, and nothing for a clean sequence.
 */
class IntervalCheckerTest {

	@Test
	void cleanSequenceReportsNothingAndCountsWorkerSwitches() {
		Interval a = new Interval(0, 1, 0, 10);
		Interval b = new Interval(1, 2, 11, 20);
		Interval c = new Interval(1, 3, 21, 30);
		Interval d = new Interval(2, 4, 31, 40);

		// Given out of order: the checker sorts by start.
		IntervalChecker.Result result = IntervalChecker.check(List.of(d, b, a, c));

		assertThat(result.intervals()).isEqualTo(4);
		assertThat(result.overlaps()).isEmpty();
		assertThat(result.tokenInversions()).isEmpty();
		assertThat(result.workerSwitches()).isEqualTo(2);
	}

	@Test
	void overlappingIntervalsAreReported() {
		Interval first = new Interval(0, 1, 0, 10);
		Interval second = new Interval(1, 2, 5, 15);

		IntervalChecker.Result result = IntervalChecker.check(List.of(second, first));

		assertThat(result.overlaps()).containsExactly(first + " overlaps " + second);
		assertThat(result.tokenInversions()).isEmpty();
	}

	@Test
	void longIntervalCoveringTwoShortOnesIsReportedForEach() {
		Interval covering = new Interval(0, 1, 0, 100);
		Interval inner1 = new Interval(1, 2, 10, 20);
		Interval inner2 = new Interval(2, 3, 30, 40);
		Interval after = new Interval(1, 4, 101, 110);

		IntervalChecker.Result result = IntervalChecker.check(List.of(inner2, after, covering, inner1));

		// inner2 does not overlap inner1, only the covering section, which a previous-only check would miss.
		assertThat(result.overlaps()).containsExactly(covering + " overlaps " + inner1, covering + " overlaps " + inner2);
		assertThat(result.tokenInversions()).isEmpty();
	}

	@Test
	void touchingIntervalsAreReportedAsOverlapping() {
		Interval first = new Interval(0, 1, 0, 10);
		Interval second = new Interval(1, 2, 10, 20);

		IntervalChecker.Result result = IntervalChecker.check(List.of(first, second));

		assertThat(result.overlaps()).containsExactly(first + " overlaps " + second);
	}

	@Test
	void decreasingOrRepeatedTokensAreReportedAsInversions() {
		Interval first = new Interval(0, 5, 0, 10);
		Interval lower = new Interval(1, 4, 20, 30);
		Interval same = new Interval(2, 4, 40, 50);
		Interval higher = new Interval(0, 6, 60, 70);

		IntervalChecker.Result result = IntervalChecker.check(List.of(first, lower, same, higher));

		assertThat(result.overlaps()).isEmpty();
		assertThat(result.tokenInversions()).containsExactly(first + " then " + lower, lower + " then " + same);
		assertThat(result.workerSwitches()).isEqualTo(3);
	}

}
