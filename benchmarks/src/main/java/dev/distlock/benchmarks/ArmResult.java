package dev.distlock.benchmarks;

import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.distlock.benchmarks.harness.ContentionResult;
import dev.distlock.benchmarks.harness.MemoryPerLock;

/**
 * Everything measured for one arm; a figure stays null (or NaN) when the arm failed before it.
 */
final class ArmResult {

	final String name;

	final boolean renewing;

	@Nullable String error;

	double oneThread = Double.NaN;

	double eightThreads = Double.NaN;

	/** Store commands per uncontended cycle, and their breakdown by command name. */
	double commandsPerCycle = Double.NaN;

	Map<String, Double> commandBreakdown = new LinkedHashMap<>();

	/** Redis {@code usec_per_call} of each command of the uncontended cycle (a script's includes what it runs). */
	Map<String, Double> microsPerCall = new LinkedHashMap<>();

	/** Store commands per acquisition with 8 clients on one key: what waiting costs the server. */
	double commandsPerContendedCycle = Double.NaN;

	MemoryPerLock.@Nullable Result memory;

	final Map<Integer, ContentionResult> contention = new LinkedHashMap<>();

	ArmResult(String name, boolean renewing) {
		this.name = name;
		this.renewing = renewing;
	}

	boolean failed() {
		return error != null;
	}

}
