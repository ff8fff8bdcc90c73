package dev.distlock.benchmarks;

import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.distlock.benchmarks.harness.ContentionResult;
import dev.distlock.benchmarks.jmh.AnnotationOverhead;

/**
 * The targets, each with this run's figure and whether it was met. Ratios are within this run only.
 */
final class Targets {

	private final StringBuilder out;

	private final RedisSuite.@Nullable Results redis;

	private final List<MongoSuite.Results> mongo;

	private final List<JdbcSuite.Results> jdbc;

	private final AnnotationOverhead.@Nullable Results jmh;

	Targets(StringBuilder out, RedisSuite.@Nullable Results redis, List<MongoSuite.Results> mongo,
			List<JdbcSuite.Results> jdbc, AnnotationOverhead.@Nullable Results jmh) {
		this.out = out;
		this.redis = redis;
		this.mongo = mongo;
		this.jdbc = jdbc;
		this.jmh = jmh;
	}

	void render() {
		out.append("## Targets (distlock against this run's floor)\n\n");
		out.append("| measure | target | measured | met |\n|---|---|---|---|\n");
		if (redis != null) {
			ArmResult floor = redis.floor();
			ArmResult ours = redis.distlock();
			atLeast("Redis uncontended, 1 thread", 0.95, ours.oneThread / floor.oneThread);
			atLeast("Redis uncontended, 8 threads", 0.95, ours.eightThreads / floor.eightThreads);
			// used_memory moves by a few hundred bytes on its own (hash-table sizes, allocator): under 1 B per key is 0.
			double released = redis.releasedKeys().afterRetention();
			row("Redis bytes per released key after retention", "0 (< 1 B per key)", Report.num(released, 1) + " B",
					released < 1);
			ContentionResult ours8 = ours.contention.get(8);
			ContentionResult floor8 = floor.contention.get(8);
			atLeast("8 clients, one key: throughput", 0.9, ours8 != null && floor8 != null
					? ours8.cyclesPerSecond() / floor8.cyclesPerSecond() : Double.NaN);
			atMost("8 clients, one key: hand-off p50", 0.2, " ms", ours8 != null ? ours8.handOffMillis(50) : Double.NaN);
			atMost("8 clients, one key: hand-off p99", 1.0, " ms", ours8 != null ? ours8.handOffMillis(99) : Double.NaN);
			atMost("8 clients, one key: wait max", 50, " ms", ours8 != null ? ours8.waitMillis(100) : Double.NaN);
			row("8 clients, one key: no starvation", "0 starved clients",
					ours8 != null ? ours8.starved() + " starved" : "-", ours8 != null && ours8.starved() == 0);
			ContentionResult renew8 = redis.distlockRenewing().contention.get(8);
			atLeast("8 clients, auto-renew on: throughput", 0.8, renew8 != null && floor8 != null
					? renew8.cyclesPerSecond() / floor8.cyclesPerSecond() : Double.NaN);
		}
		if (jmh != null) {
			annotationOverhead(jmh);
		}
		for (MongoSuite.Results results : mongo) {
			String where = results.endpoint().startsWith("MongoDB") ? " (real server)" : " (wire server)";
			atLeast("Mongo vs raw driver, 1 thread" + where, 0.9,
					results.distlock().oneThread / results.floor().oneThread);
			atLeast("Mongo vs raw driver, 8 threads" + where, 0.9,
					results.distlock().eightThreads / results.floor().eightThreads);
			atLeast("Mongo vs ShedLock, 1 thread" + where, 1.0,
					results.distlock().oneThread / results.shedLock().oneThread);
			atLeast("Mongo vs ShedLock, 8 threads" + where, 1.0,
					results.distlock().eightThreads / results.shedLock().eightThreads);
		}
		for (JdbcSuite.Results results : jdbc) {
			jdbc(results);
		}
		out.append('\n');
	}

	/**
	 * The JDBC targets: uncontended at least 0.9x the floor; under contention ahead of both peers, with no
	 * starved client; on PostgreSQL a hand-off p99 under 5 ms (a NOTIFY round trip, not a polling interval).
	 */
	private void jdbc(JdbcSuite.Results results) {
		ArmResult floor = results.floor();
		ArmResult ours = results.distlock();
		if (floor == null || ours == null) {
			return;
		}
		String db = results.postgres() ? "PostgreSQL" : "MariaDB";
		atLeast(db + " uncontended vs floor, 1 thread", 0.9, ours.oneThread / floor.oneThread);
		atLeast(db + " uncontended vs floor, 8 threads", 0.9, ours.eightThreads / floor.eightThreads);
		for (int clients : List.of(8, 32)) {
			double rate = Report.rateOf(ours, clients);
			double peers = Math.max(Report.rateOf(results.shedLock(), clients),
					Report.rateOf(results.integration(), clients));
			atLeast(db + " " + clients + " clients, one key: throughput vs the faster peer", 1.0, rate / peers);
			ContentionResult c = ours.contention.get(clients);
			if (results.postgres()) {
				atMost(db + " " + clients + " clients, one key: hand-off p99", 5.0, " ms",
						c != null ? c.handOffMillis(99) : Double.NaN);
			}
			row(db + " " + clients + " clients, one key: no starvation", "0 starved clients",
					c != null ? c.starved() + " starved" : "-", c != null && c.starved() == 0);
		}
	}

	/**
	 * The difference of two JMH scores means nothing when their error bars are wider than it, as on a loaded machine.
	 */
	private void annotationOverhead(AnnotationOverhead.Results results) {
		double overhead = results.overheadNanos();
		double noise = results.error().getOrDefault("annotated", Double.NaN)
				+ results.error().getOrDefault("direct", Double.NaN);
		if (Double.isNaN(overhead) || !(noise < Math.abs(overhead) || noise < 2000)) {
			row("annotation overhead (annotated - direct)", "<= 2,000 ns",
					Report.num(overhead, 0) + " ns, error bars +-" + Report.num(noise, 0) + " ns", "inconclusive");
			return;
		}
		atMost("annotation overhead (annotated - direct)", 2000, " ns", overhead);
	}

	private void atLeast(String measure, double target, double ratio) {
		row(measure, ">= " + target + "x", Report.ratio(ratio, 1.0), !Double.isNaN(ratio) && ratio >= target);
	}

	private void atMost(String measure, double target, String unit, double value) {
		row(measure, "<= " + Report.num(target, unit.equals(" ms") ? 1 : 0) + unit,
				Report.num(value, unit.equals(" ms") ? 3 : 0) + unit, !Double.isNaN(value) && value <= target);
	}

	private void row(String measure, String target, String measured, boolean met) {
		row(measure, target, measured, met ? "yes" : "**no**");
	}

	private void row(String measure, String target, String measured, String verdict) {
		out.append("| ").append(measure).append(" | ").append(target).append(" | ").append(measured).append(" | ")
			.append(verdict).append(" |\n");
	}

}
