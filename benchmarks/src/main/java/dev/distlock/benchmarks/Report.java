package dev.distlock.benchmarks;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import dev.distlock.benchmarks.harness.ContentionResult;
import dev.distlock.benchmarks.jmh.AnnotationOverhead;
import dev.distlock.benchmarks.redis.ReleasedKeyMemory;
import dev.distlock.benchmarks.redis.ScriptCost;
import dev.distlock.benchmarks.redis.StatusCost;

/**
 * Renders one run as Markdown: the machine, the Redis, Mongo and JMH tables, and the targets with this run's ratios.
 */
final class Report {

	private final Settings settings;

	private final RedisSuite.@Nullable Results redis;

	private final List<MongoSuite.Results> mongo;

	private final List<JdbcSuite.Results> jdbc;

	private final AnnotationOverhead.@Nullable Results jmh;

	private final double seconds;

	private final String load;

	private final StringBuilder out = new StringBuilder();

	Report(Settings settings, RedisSuite.@Nullable Results redis, List<MongoSuite.Results> mongo,
			List<JdbcSuite.Results> jdbc, AnnotationOverhead.@Nullable Results jmh, double seconds, String load) {
		this.settings = settings;
		this.redis = redis;
		this.mongo = mongo;
		this.jdbc = jdbc;
		this.jmh = jmh;
		this.seconds = seconds;
		this.load = load;
	}

	String render() {
		machine();
		if (redis != null) {
			redis(redis);
		}
		for (MongoSuite.Results results : mongo) {
			mongo(results);
		}
		for (JdbcSuite.Results results : jdbc) {
			jdbc(results);
		}
		if (jmh != null) {
			jmh(jmh);
		}
		new Targets(out, redis, mongo, jdbc, jmh).render();
		return out.toString();
	}

	private void machine() {
		line("## Machine and run");
		line("");
		line("- cores (nproc): " + Machine.cores() + "; CPU: " + Machine.cpuModel() + "; OS: " + Machine.os());
		line("- JDK: " + Machine.jdk());
		if (redis != null) {
			line("- Redis: " + redis.version() + " (redis-server on a free port, no persistence, same host)");
		}
		mongo.forEach(results -> line("- Mongo: " + results.endpoint()));
		jdbc.forEach(results -> line("- JDBC: " + results.database() + (results.failure() == null
				? " (a server of the run's own on a free port, same host, commits not flushed to disk), a Hikari pool of "
						+ JdbcSuite.POOL_SIZE + " per client"
				: ": not run, " + results.failure())));
		line("- load during the run: " + load);
		line(String.format(Locale.ROOT, "- window %s per figure, warm-up %s per arm, %d locks held for memory; "
				+ "whole run %.0f s", settings.window(), settings.warmup(), settings.heldLocks(), seconds));
		line("");
	}

	private void redis(RedisSuite.Results results) {
		ArmResult floor = results.floor();
		line("## Redis: uncontended, one client, distinct keys");
		line("");
		line("| arm | 1 thread, cycles/s | x floor | 8 threads, cycles/s | x floor | commands/cycle | "
				+ "commands/acquire, 8 clients on one key | heap B/held lock | Redis B/held lock |");
		line("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
		for (ArmResult arm : results.all()) {
			if (arm.failed() && Double.isNaN(arm.oneThread)) {
				line("| " + arm.name + " | failed: " + arm.error + " | | | | | | | |");
				continue;
			}
			line("| " + arm.name + " | " + rate(arm.oneThread) + " | " + ratio(arm.oneThread, floor.oneThread) + " | "
					+ rate(arm.eightThreads) + " | " + ratio(arm.eightThreads, floor.eightThreads) + " | "
					+ num(arm.commandsPerCycle, 2) + " | " + num(arm.commandsPerContendedCycle, 1) + " | "
					+ (arm.memory != null ? num(arm.memory.heapBytes(), 0) + " | " + num(arm.memory.storeBytes(), 0)
							: "- | -")
					+ " |");
		}
		line("");
		line("Commands per uncontended cycle, by command, with `usec_per_call` from `INFO commandstats` in brackets (a "
				+ "script's figure includes the commands it runs, which are also listed on their own; these are taken "
				+ "during the run, so preemption on a busy machine inflates them):");
		line("");
		for (ArmResult arm : results.all()) {
			if (!arm.commandBreakdown.isEmpty()) {
				line("- " + arm.name + ": " + arm.commandBreakdown.entrySet()
					.stream()
					.map(entry -> entry.getKey() + " " + num(entry.getValue(), 2) + " ("
							+ num(arm.microsPerCall.getOrDefault(entry.getKey(), Double.NaN), 2) + " us)")
					.collect(Collectors.joining(", ")));
			}
		}
		line("");
		ScriptCost.Result cost = results.scriptCost();
		line("## Redis: server time per uncontended cycle (`usec_per_call`, each step alone, lowest of 5 rounds of "
				+ ScriptCost.CYCLES + ")");
		line("");
		line("| arm | acquire us | release us | cycle us | x floor |");
		line("|---|---:|---:|---:|---:|");
		line("| floor: `SET NX PX` + compare-and-delete `EVALSHA` | " + num(cost.floorAcquire(), 2) + " | "
				+ num(cost.floorRelease(), 2) + " | " + num(cost.floorCycle(), 2) + " | 1.00x |");
		line("| distlock: `acquire.lua` + `release.lua` (fresh keys, nobody waiting) | " + num(cost.acquire(), 2) + " | "
				+ num(cost.release(), 2) + " | " + num(cost.cycle(), 2) + " | "
				+ num(cost.cycle() / cost.floorCycle(), 2) + "x |");
		line("| distlock, `fencing=false`: `SET NX GET PX` + lean `release.lua` (fresh keys, nobody waiting) | "
				+ num(cost.leanAcquire(), 2) + " | " + num(cost.leanRelease(), 2) + " | " + num(cost.leanCycle(), 2)
				+ " | " + num(cost.leanCycle() / cost.floorCycle(), 2) + "x |");
		line("");
		ReleasedKeyMemory.Result released = results.releasedKeys();
		line("## Redis: memory per lock key, held and released");
		line("");
		line("| measure | Redis bytes |");
		line("|---|---:|");
		line("| per held lock (distlock, from the table above) | "
				+ (results.distlock().memory != null ? num(results.distlock().memory.storeBytes(), 0) : "-") + " |");
		line("| per released key, within the fence retention (" + ReleasedKeyMemory.KEYS + " keys) | "
				+ num(released.withinRetention(), 0) + " |");
		line("| per released key, after the retention (" + ReleasedKeyMemory.RETENTION.toSeconds()
				+ " s here; expired " + num(released.expiredAfter().toMillis() / 1000.0, 1) + " s after the last "
				+ "release, " + released.keysLeft() + " keys left) | " + num(released.afterRetention(), 0) + " |");
		line("");
		StatusCost.Result status = results.statusCost();
		line("## Redis: status cost");
		line("");
		line("| query | keys | found | status ms | one SCAN pass ms | x SCAN pass | SCAN pass with MATCH ms | "
				+ "SCAN / EVALSHA per status |");
		line("|---|---:|---:|---:|---:|---:|---:|---:|");
		line("| status(HELD), " + StatusCost.RELEASED + " released keys + " + StatusCost.HELD + " held | "
				+ status.keys() + " | " + status.found() + " | " + num(status.statusMillis(), 1) + " | "
				+ num(status.scanMillis(), 1) + " | " + num(status.ratio(), 2) + " | " + num(status.matchScanMillis(), 1)
				+ " | " + status.scanCalls() + " / "
				+ status.scriptCalls() + " |");
		line("");
		contention("## Redis: contention, K independent clients on one key", results.all(), floor, false);
		contention("## Redis: contention with auto-renew (watchdog) on; ratios against the floor without", results.all(),
				floor, true);
	}

	private void contention(String title, List<ArmResult> arms, ArmResult floor, boolean renewing) {
		line(title);
		line("");
		line("| arm | K | cycles/s | x floor | hand-off p50 ms | hand-off p99 ms | hand-off max ms | wait p99 ms | "
				+ "wait max ms | starved clients | overlaps |");
		line("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
		for (ArmResult arm : arms) {
			if (arm.renewing != renewing && arm != floor) {
				continue;
			}
			for (Map.Entry<Integer, ContentionResult> entry : arm.contention.entrySet()) {
				ContentionResult c = entry.getValue();
				ContentionResult base = floor.contention.get(entry.getKey());
				line("| " + arm.name + " | " + c.clients() + " | " + rate(c.cyclesPerSecond()) + " | "
						+ ratio(c.cyclesPerSecond(), base != null ? base.cyclesPerSecond() : Double.NaN) + " | "
						+ num(c.handOffMillis(50), 3) + " | " + num(c.handOffMillis(99), 3) + " | "
						+ num(c.handOffMillis(100), 3) + " | " + num(c.waitMillis(99), 2) + " | "
						+ num(c.waitMillis(100), 1) + " | " + c.starved() + " | " + c.violations() + " |");
			}
			if (arm.failed() && (arm.renewing == renewing)) {
				line("| " + arm.name + " | | failed: " + arm.error + " | | | | | | | | |");
			}
		}
		line("");
	}

	private void mongo(MongoSuite.Results results) {
		line("## Mongo: " + results.endpoint());
		line("");
		line("| arm | 1 thread, cycles/s | x raw | x ShedLock | 8 threads, cycles/s | x raw | x ShedLock | "
				+ "8 clients one key, cycles/s | wait p99 ms | wait max ms | overlaps | heap B/held lock |");
		line("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
		ArmResult raw = results.floor();
		ArmResult shed = results.shedLock();
		for (ArmResult arm : results.all()) {
			if (arm.failed() && Double.isNaN(arm.oneThread)) {
				line("| " + arm.name + " | failed: " + arm.error + " | | | | | | | | | | |");
				continue;
			}
			ContentionResult c = arm.contention.get(8);
			line("| " + arm.name + " | " + rate(arm.oneThread) + " | " + ratio(arm.oneThread, raw.oneThread) + " | "
					+ ratio(arm.oneThread, shed.oneThread) + " | " + rate(arm.eightThreads) + " | "
					+ ratio(arm.eightThreads, raw.eightThreads) + " | " + ratio(arm.eightThreads, shed.eightThreads)
					+ " | " + (c != null ? rate(c.cyclesPerSecond()) + " | " + num(c.waitMillis(99), 2) + " | "
							+ num(c.waitMillis(100), 1) + " | " + c.violations() : "- | - | - | -")
					+ " | " + (arm.memory != null ? num(arm.memory.heapBytes(), 0) : "-") + " |");
		}
		line("");
	}

	private void jdbc(JdbcSuite.Results results) {
		if (results.failure() != null || results.floor() == null) {
			return;
		}
		ArmResult floor = results.floor();
		line("## JDBC: " + results.database() + ", uncontended, one client, distinct keys");
		line("");
		line("| arm | 1 thread, cycles/s | x floor | 8 threads, cycles/s | x floor | statements/cycle | "
				+ "connections in use max, 8 threads | pool wait max ms, 8 threads | heap B/held lock |");
		line("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
		for (ArmResult arm : results.all()) {
			if (arm.failed() && Double.isNaN(arm.oneThread)) {
				line("| " + arm.name + " | failed: " + arm.error + " | | | | | | | |");
				continue;
			}
			ArmResult.Connections eight = arm.uncontendedConnections.get(8);
			line("| " + arm.name + " | " + rate(arm.oneThread) + " | " + ratio(arm.oneThread, floor.oneThread) + " | "
					+ rate(arm.eightThreads) + " | " + ratio(arm.eightThreads, floor.eightThreads) + " | "
					+ num(arm.commandsPerCycle, 2) + " | "
					+ (eight != null ? eight.maxInUse() + " | " + num(eight.maxWaitMillis(), 1) : "- | -") + " | "
					+ (arm.memory != null ? num(arm.memory.heapBytes(), 0) : "-") + " |");
		}
		line("");
		line("Statements per uncontended cycle (" + settings.commandCycles() + " cycles on one key, one thread), with the "
				+ "server's mean time per call in brackets (`pg_stat_statements` / `performance_schema`; under load, "
				+ "preemption inflates them):");
		line("");
		for (ArmResult arm : results.all()) {
			if (!arm.commandBreakdown.isEmpty()) {
				line("- " + arm.name + ": " + arm.commandBreakdown.entrySet()
					.stream()
					.map(entry -> "`" + entry.getKey() + "` " + num(entry.getValue(), 2) + " ("
							+ num(arm.microsPerCall.getOrDefault(entry.getKey(), Double.NaN), 1) + " us)")
					.collect(Collectors.joining(", ")));
			}
		}
		line("");
		line("## JDBC: " + results.database() + ", contention, K independent clients on one key");
		line("");
		line("| arm | K | cycles/s | x floor | x ShedLock | x Spring Integration | hand-off p50 ms | hand-off p99 ms | "
				+ "hand-off max ms | wait p99 ms | wait max ms | starved clients | overlaps | hand-offs | "
				+ "statements/acquire | connections in use max | server connections |");
		line("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
		for (ArmResult arm : results.all()) {
			for (Map.Entry<Integer, ContentionResult> entry : arm.contention.entrySet()) {
				ContentionResult c = entry.getValue();
				ArmResult.Connections conns = arm.contentionConnections.get(entry.getKey());
				line("| " + arm.name + " | " + c.clients() + " | " + rate(c.cyclesPerSecond()) + " | "
						+ ratio(c.cyclesPerSecond(), rateOf(floor, entry.getKey())) + " | "
						+ ratio(c.cyclesPerSecond(), rateOf(results.shedLock(), entry.getKey())) + " | "
						+ ratio(c.cyclesPerSecond(), rateOf(results.integration(), entry.getKey())) + " | "
						+ num(c.handOffMillis(50), 3) + " | " + num(c.handOffMillis(99), 3) + " | "
						+ num(c.handOffMillis(100), 3) + " | " + num(c.waitMillis(99), 2) + " | "
						+ num(c.waitMillis(100), 1) + " | " + c.starved() + " | " + c.violations() + " | "
						+ (c.cycles() > 0 ? num(100.0 * c.handOff().getTotalCount() / c.cycles(), 0) + "%" : "-")
						+ " | " + (conns != null ? num(conns.statementsPerAcquire(), 1) + " | " + conns.maxInUse() + " | "
								+ (conns.server() < 0 ? "-" : String.valueOf(conns.server())) : "- | - | -")
						+ " |");
			}
			if (arm.failed()) {
				line("| " + arm.name + " | | failed: " + arm.error + " | | | | | | | | | | | | | | |");
			}
		}
		line("");
		if (results.all().stream().anyMatch(arm -> !arm.seqScans.isEmpty())) {
			line("Sequential scans of each arm's table during its windows (`pg_stat_user_tables.seq_scan`): a statement by "
					+ "key that scans runs a plan cached while the table looked empty or tiny (docs/JDBC.md, \"The "
					+ "planner and a churning table\"); thousands mean the arm's figures include them.");
			line("");
			for (ArmResult arm : results.all()) {
				if (!arm.seqScans.isEmpty()) {
					line("- " + arm.name + ": " + arm.seqScans.entrySet()
						.stream()
						.map(entry -> entry.getKey() + " " + num(entry.getValue(), 0))
						.collect(Collectors.joining(", ")));
				}
			}
			line("");
		}
	}

	/** The arm's acquisitions per second with {@code clients} on one key, NaN when it has none. */
	static double rateOf(@Nullable ArmResult arm, int clients) {
		ContentionResult c = arm != null ? arm.contention.get(clients) : null;
		return c != null ? c.cyclesPerSecond() : Double.NaN;
	}

	private void jmh(AnnotationOverhead.Results results) {
		line("## Annotation + SpEL overhead (JMH, in-memory provider, 1 fork, 3x1 s warm-up, 5x1 s)");
		line("");
		if (results.failure() != null) {
			line("JMH failed: " + results.failure());
			line("");
			return;
		}
		line("| benchmark | ns/op | error (99.9%) |");
		line("|---|---:|---:|");
		results.nanosPerCall().forEach((name, score) -> line("| " + name + " | " + num(score, 0) + " | "
				+ num(results.error().getOrDefault(name, Double.NaN), 0) + " |"));
		line("");
	}

	private void line(String text) {
		out.append(text).append('\n');
	}

	static String rate(double perSecond) {
		return Double.isNaN(perSecond) ? "-" : String.format(Locale.ROOT, "%,.0f", perSecond);
	}

	static String ratio(double value, double base) {
		return Double.isNaN(value) || Double.isNaN(base) || base == 0 ? "-"
				: String.format(Locale.ROOT, "%.2fx", value / base);
	}

	static String num(double value, int decimals) {
		return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%,." + decimals + "f", value);
	}

}
