package dev.distlock.benchmarks.jmh;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs {@link AnnotationOverheadBenchmark} in JMH: one fork, 3 warm-up and 5 measured iterations of 1 s. JMH's own
 * output goes to {@code bench.jmhLog} (default {@code benchmarks/target/jmh.log}), not into the table.
 */
public final class AnnotationOverhead {

	private AnnotationOverhead() {
	}

	/**
	 * Nanoseconds per call by benchmark method, with the 99.9% error; or the failure.
	 * @param nanosPerCall score by method name
	 * @param error score error by method name
	 * @param failure why JMH produced nothing, or null
	 */
	public record Results(Map<String, Double> nanosPerCall, Map<String, Double> error, @Nullable String failure) {

		/**
		 * The annotated call minus the direct one, in nanoseconds, or NaN when either is missing.
		 */
		public double overheadNanos() {
			Double annotated = nanosPerCall.get("annotated");
			Double direct = nanosPerCall.get("direct");
			return annotated == null || direct == null ? Double.NaN : annotated - direct;
		}

	}

	/**
	 * Runs the benchmark in a forked JVM.
	 */
	public static Results run() {
		System.err.println("JMH: annotation overhead");
		Options options = new OptionsBuilder().include(AnnotationOverheadBenchmark.class.getName() + ".")
			.forks(1)
			.warmupIterations(3)
			.warmupTime(TimeValue.seconds(1))
			.measurementIterations(5)
			.measurementTime(TimeValue.seconds(1))
			.timeUnit(TimeUnit.NANOSECONDS)
			.output(System.getProperty("bench.jmhLog", "benchmarks/target/jmh.log"))
			.build();
		Map<String, Double> scores = new LinkedHashMap<>();
		Map<String, Double> errors = new LinkedHashMap<>();
		try {
			Collection<RunResult> results = new Runner(options).run();
			for (RunResult result : results) {
				String label = result.getParams().getBenchmark();
				String method = label.substring(label.lastIndexOf('.') + 1);
				scores.put(method, result.getPrimaryResult().getScore());
				errors.put(method, result.getPrimaryResult().getScoreError());
			}
			return new Results(scores, errors, scores.isEmpty() ? "no results; see the JMH log" : null);
		}
		catch (RunnerException | RuntimeException ex) {
			return new Results(scores, errors, ex.getClass().getSimpleName() + ": " + ex.getMessage());
		}
	}

}
