package dev.distlock.benchmarks.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.distlock.core.LockMode;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.redis.RedisLockProvider;
import dev.distlock.redis.RedisLockSettings;

/**
 * Redis CPU of one uncontended cycle, from {@code INFO commandstats}: the {@code usec_per_call} of the floor's
 * {@code SET NX PX} and its compare-and-delete EVALSHA, of distlock's acquire and release scripts, and of distlock
 * without fencing tokens ({@code fencing=false}: a plain {@code SET NX GET PX} and the lean release). Each step runs
 * alone over {@link #CYCLES} fresh keys on one connection (all acquires, then all releases), so each figure is one
 * command's own; the lowest of {@link #ROUNDS} rounds is kept, as preemption on a shared machine only adds time.
 */
public final class ScriptCost {

	/** Keys per round and step. */
	public static final int CYCLES = 5_000;

	private static final int ROUNDS = 5;

	private static final OwnerDetails OWNER = new OwnerDetails("benchmarks", "localhost");

	private ScriptCost() {
	}

	/**
	 * The figures, microseconds of Redis time per call.
	 * @param floorAcquire the floor's {@code SET NX PX}
	 * @param floorRelease the floor's compare-and-delete script
	 * @param acquire distlock's {@code acquire.lua}, granting
	 * @param release distlock's {@code release.lua}, nobody queued
	 * @param leanAcquire distlock's {@code SET NX GET PX} without fencing tokens, granting
	 * @param leanRelease distlock's lean {@code release.lua} without fencing tokens, nobody queued
	 */
	public record Result(double floorAcquire, double floorRelease, double acquire, double release, double leanAcquire,
			double leanRelease) {

		/** The floor's cycle. */
		public double floorCycle() {
			return floorAcquire + floorRelease;
		}

		/** distlock's cycle. */
		public double cycle() {
			return acquire + release;
		}

		/** distlock's cycle without fencing tokens. */
		public double leanCycle() {
			return leanAcquire + leanRelease;
		}

	}

	/**
	 * Measures on the server at the port (emptied first and after).
	 */
	public static Result measure(int port, RedisStats stats) {
		double[] best = new double[6];
		Arrays.fill(best, Double.MAX_VALUE);
		RedisClient client = RedisClient.create("redis://127.0.0.1:" + port);
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
		factory.afterPropertiesSet();
		factory.start();
		try (StatefulRedisConnection<String, String> connection = client.connect();
				RedisLockProvider provider = new RedisLockProvider(factory, RedisLockSettings.defaults());
				RedisLockProvider lean = new RedisLockProvider(factory, RedisLockSettings.defaults().withFencing(false))) {
			RedisCommands<String, String> redis = connection.sync();
			String release = redis.scriptLoad(LettuceFloorArm.COMPARE_AND_DELETE);
			SetArgs nxPx = SetArgs.Builder.nx().px(10_000);
			for (int round = 0; round <= ROUNDS; round++) {
				stats.flushAll();
				String prefix = "cost" + round + ":";
				double[] micros = new double[6];
				micros[0] = perCall(stats, "set", () -> {
					for (int i = 0; i < CYCLES; i++) {
						redis.set(prefix + "f" + i, "token", nxPx);
					}
				});
				micros[1] = perCall(stats, "evalsha", () -> {
					for (int i = 0; i < CYCLES; i++) {
						redis.evalsha(release, ScriptOutputType.INTEGER, new String[] { prefix + "f" + i }, "token");
					}
				});
				List<Lease> leases = new ArrayList<>(CYCLES);
				micros[2] = perCall(stats, "evalsha", () -> {
					for (int i = 0; i < CYCLES; i++) {
						leases.add(provider.tryAcquire(new LockRequest(prefix + "d" + i, "token", Duration.ofSeconds(10),
								LockMode.EXCLUSIVE, 1, OWNER)).orElseThrow());
					}
				});
				micros[3] = perCall(stats, "evalsha", () -> leases.forEach(Lease::release));
				List<Lease> leanLeases = new ArrayList<>(CYCLES);
				micros[4] = perCall(stats, "set", () -> {
					for (int i = 0; i < CYCLES; i++) {
						leanLeases.add(lean.tryAcquire(new LockRequest(prefix + "l" + i, "token", Duration.ofSeconds(10),
								LockMode.EXCLUSIVE, 1, OWNER)).orElseThrow());
					}
				});
				micros[5] = perCall(stats, "evalsha", () -> leanLeases.forEach(Lease::release));
				if (round > 0) { // round 0 loads the scripts and warms both sides
					for (int i = 0; i < best.length; i++) {
						best[i] = Math.min(best[i], micros[i]);
					}
				}
			}
		}
		finally {
			factory.destroy();
			client.shutdown();
			stats.flushAll();
		}
		return new Result(best[0], best[1], best[2], best[3], best[4], best[5]);
	}

	/**
	 * Runs the measurement alone on a fresh server and prints the figures.
	 */
	public static void main(String[] args) {
		try (BenchmarkRedisServer server = BenchmarkRedisServer.start();
				RedisStats stats = new RedisStats("redis://127.0.0.1:" + server.port())) {
			Result result = measure(server.port(), stats);
			System.out.printf("Redis usec per call: floor SET NX PX %.2f + compare-and-delete %.2f = %.2f; "
					+ "distlock acquire.lua %.2f + release.lua %.2f = %.2f; ratio %.2f; "
					+ "fencing off SET NX GET PX %.2f + lean release.lua %.2f = %.2f; ratio %.2f (Redis %s)%n",
					result.floorAcquire(), result.floorRelease(), result.floorCycle(), result.acquire(),
					result.release(), result.cycle(), result.cycle() / result.floorCycle(), result.leanAcquire(),
					result.leanRelease(), result.leanCycle(), result.leanCycle() / result.floorCycle(), stats.version());
		}
		System.exit(0);
	}

	private static double perCall(RedisStats stats, String command, Runnable calls) {
		Map<String, Long> countBefore = stats.commandCalls();
		Map<String, Long> microsBefore = stats.commandMicros();
		calls.run();
		long count = stats.commandCalls().getOrDefault(command, 0L) - countBefore.getOrDefault(command, 0L);
		long micros = stats.commandMicros().getOrDefault(command, 0L) - microsBefore.getOrDefault(command, 0L);
		return micros / (double) count;
	}

}
