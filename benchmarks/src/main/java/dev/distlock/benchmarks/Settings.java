package dev.distlock.benchmarks;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * How long and how much to measure, from system properties so one run can be shortened or narrowed.
 * @param window the measurement window of each throughput and contention figure ({@code -Dbench.window=3s})
 * @param warmup the uncontended warm-up before an arm's first figure ({@code -Dbench.warmup=3s})
 * @param contentionWarmup the contended warm-up of each contention figure, same clients and key, figures dropped
 * ({@code -Dbench.contentionWarmup=5s})
 * @param contenders the numbers of independent clients on one key ({@code -Dbench.contenders=2,8,32})
 * @param heldLocks how many locks the memory figure holds at once ({@code -Dbench.heldLocks=2000})
 * @param commandCycles how many cycles the command count runs ({@code -Dbench.commandCycles=1000})
 * @param suites which parts run: redis, mongo, jdbc, jmh ({@code -Dbench.suites=redis,mongo,jdbc,jmh})
 * @param peers whether the peer libraries' arms run; {@code -Dbench.peers=false} keeps only the floor and distlock,
 * for quick before/after comparisons while tuning
 */
public record Settings(Duration window, Duration warmup, Duration contentionWarmup, List<Integer> contenders,
		int heldLocks, int commandCycles, Set<String> suites, boolean peers) {

	/**
	 * The settings from system properties, defaulting to a run of about ten minutes on two cores.
	 */
	public static Settings fromSystemProperties() {
		return new Settings(duration("bench.window", "3s"), duration("bench.warmup", "3s"),
				duration("bench.contentionWarmup", "5s"),
				Arrays.stream(System.getProperty("bench.contenders", "2,8,32").split(","))
					.map(String::trim)
					.map(Integer::valueOf)
					.toList(),
				Integer.getInteger("bench.heldLocks", 2000), Integer.getInteger("bench.commandCycles", 1000),
				Arrays.stream(System.getProperty("bench.suites", "redis,mongo,jdbc,jmh").split(","))
					.map(String::trim)
					.collect(Collectors.toSet()),
				Boolean.parseBoolean(System.getProperty("bench.peers", "true")));
	}

	/**
	 * Whether the named suite runs.
	 */
	public boolean runs(String suite) {
		return suites.contains(suite);
	}

	private static Duration duration(String property, String fallback) {
		String value = System.getProperty(property, fallback).trim().toLowerCase();
		if (value.endsWith("ms")) {
			return Duration.ofMillis(Long.parseLong(value.substring(0, value.length() - 2)));
		}
		if (value.endsWith("s")) {
			return Duration.ofMillis((long) (Double.parseDouble(value.substring(0, value.length() - 1)) * 1000));
		}
		throw new IllegalArgumentException("System property '" + property + "' must end in ms or s, was " + value);
	}

}
