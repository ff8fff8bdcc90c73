package dev.distlock.benchmarks;

import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.distlock.benchmarks.harness.Contention;
import dev.distlock.benchmarks.harness.ContentionResult;
import dev.distlock.benchmarks.harness.LockArm;
import dev.distlock.benchmarks.harness.LockClient;
import dev.distlock.benchmarks.harness.MemoryPerLock;
import dev.distlock.benchmarks.harness.Uncontended;
import dev.distlock.benchmarks.redis.RedisStats;

/**
 * Runs every workload on one arm, in a fixed order, and keeps going past an arm that fails: its row says why.
 */
final class ArmRunner {

	private static final Log logger = LogFactory.getLog(ArmRunner.class);

	private final Settings settings;

	private final @Nullable Supplier<Map<String, Long>> commandCalls;

	private final LongSupplier storeBytes;

	/**
	 * A runner; {@code commandCalls} and {@code storeBytes} read the store's counters (null and -1 when it has none).
	 */
	ArmRunner(Settings settings, @Nullable Supplier<Map<String, Long>> commandCalls, LongSupplier storeBytes) {
		this.settings = settings;
		this.commandCalls = commandCalls;
		this.storeBytes = storeBytes;
	}

	ArmResult run(LockArm arm, String keyPrefix) {
		ArmResult result = new ArmResult(arm.name(), arm.renewing());
		Progress.say("  " + arm.name());
		try (LockClient client = arm.newClient()) {
			Uncontended.cyclesPerSecond(client, keyPrefix + ":warm", 2, settings.warmup());
			result.oneThread = Uncontended.cyclesPerSecond(client, keyPrefix, 1, settings.window());
			result.eightThreads = Uncontended.cyclesPerSecond(client, keyPrefix, 8, settings.window());
			Progress.say(String.format("    uncontended: %,.0f/s (1 thread), %,.0f/s (8 threads)", result.oneThread,
					result.eightThreads));
			if (commandCalls != null) {
				Map<String, Long> before = commandCalls.get();
				Uncontended.cycles(client, keyPrefix + ":cmd", settings.commandCycles());
				Map<String, Long> delta = RedisStats.delta(before, commandCalls.get());
				delta.forEach((name, calls) -> result.commandBreakdown.put(name,
						calls / (double) settings.commandCycles()));
				result.commandsPerCycle = delta.values().stream().mapToLong(Long::longValue).sum()
						/ (double) settings.commandCycles();
			}
			result.memory = MemoryPerLock.measure(client, keyPrefix + ":mem", settings.heldLocks(), storeBytes);
		}
		catch (RuntimeException ex) {
			return failed(result, ex);
		}
		for (int clients : settings.contenders()) {
			try {
				Map<String, Long> before = commandCalls != null && clients == 8 ? commandCalls.get() : null;
				ContentionResult contention = Contention.run(arm::newClient, clients, keyPrefix + ":c" + clients,
						settings.window());
				result.contention.put(clients, contention);
				if (before != null && commandCalls != null && contention.cycles() > 0) {
					long calls = RedisStats.delta(before, commandCalls.get())
						.values()
						.stream()
						.mapToLong(Long::longValue)
						.sum();
					result.commandsPerContendedCycle = calls / (double) contention.cycles();
				}
				Progress.say(String.format("    %d clients: %,.0f/s, handoff p50 %.3f ms, wait max %.1f ms", clients,
						contention.cyclesPerSecond(), contention.handoffMillis(50), contention.waitMillis(100)));
			}
			catch (RuntimeException ex) {
				return failed(result, ex);
			}
		}
		return result;
	}

	private static ArmResult failed(ArmResult result, RuntimeException ex) {
		Throwable root = ex;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		result.error = root.getClass().getSimpleName() + ": " + root.getMessage();
		Progress.say("    failed: " + result.error);
		logger.debug("Arm '" + result.name + "' failed", ex);
		return result;
	}

}
