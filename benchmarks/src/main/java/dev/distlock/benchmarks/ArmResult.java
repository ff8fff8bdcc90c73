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

	/** Store commands (SQL statements on JDBC) per uncontended cycle, and their breakdown by command name. */
	double commandsPerCycle = Double.NaN;

	Map<String, Double> commandBreakdown = new LinkedHashMap<>();

	/** Redis {@code usec_per_call} of each command of the uncontended cycle (a script's includes what it runs). */
	Map<String, Double> microsPerCall = new LinkedHashMap<>();

	/** Store commands per acquisition with 8 clients on one key: what waiting costs the server. */
	double commandsPerContendedCycle = Double.NaN;

	MemoryPerLock.@Nullable Result memory;

	final Map<Integer, ContentionResult> contention = new LinkedHashMap<>();

	/**
	 * Sequential scans of the arm's lock table during its windows, by phase ("1 thread", "8 threads", "8 clients", ...),
	 * on PostgreSQL only.
	 */
	final Map<String, Long> seqScans = new LinkedHashMap<>();

	/** Connection figures of the uncontended runs, by thread count (the highest of the rounds), for arms with a pool. */
	final Map<Integer, Connections> uncontendedConnections = new LinkedHashMap<>();

	/** Connection figures of each contention run, by number of clients, for arms with a pool. */
	final Map<Integer, Connections> contentionConnections = new LinkedHashMap<>();

	/**
	 * Connections during one window.
	 * @param maxInUse the most pooled connections the arm's clients had borrowed at once
	 * @param maxWaitMillis the longest a borrow waited for a connection
	 * @param server the client connections the database server had open as the window began (-1 if unknown)
	 * @param statementsPerAcquire statements the server ran per acquisition in the window (NaN if not counted)
	 */
	record Connections(int maxInUse, double maxWaitMillis, long server, double statementsPerAcquire) {

		Connections max(@Nullable Connections other) {
			return other == null ? this : new Connections(Math.max(maxInUse, other.maxInUse),
					Math.max(maxWaitMillis, other.maxWaitMillis), Math.max(server, other.server), Double.NaN);
		}

	}

	ArmResult(String name, boolean renewing) {
		this.name = name;
		this.renewing = renewing;
	}

	boolean failed() {
		return error != null;
	}

}
