package dev.distlock.reliability;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.distlock.jdbc.testsupport.TestDatabase;
import dev.distlock.mongo.testsupport.MongoTestServer;
import dev.distlock.redis.testsupport.RedisServerProcess;
import dev.distlock.reliability.worker.IntervalLog;
import dev.distlock.reliability.worker.IntervalLog.Interval;
import dev.distlock.reliability.worker.UnguardedCounter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Several worker JVMs, each with several threads, increment an unguarded read–sleep–write file counter through
 * {@code @DistributedLock} on one key. Mutual exclusion holds only if the count is exact, no two critical sections
 * overlap in time, and fencing tokens strictly increase in interval order. The workers start together behind a
 * barrier, and the lock must pass between processes often, so the run proves cross-process contention, not a series
 * of JVMs taking turns.
 */
class MultiProcessMutualExclusionTest {

	private static final int WORKERS = Reports.intProperty("reliability.workers", 3);

	private static final int THREADS = Reports.intProperty("reliability.threads", 4);

	private static final int ITERATIONS = Reports.intProperty("reliability.iterations", 500);

	/**
	 * The fewest times consecutive sections (by start) must come from different workers: ten per worker, so a run in
	 * which the JVMs took turns (two switches) fails. How often the lock passes between JVMs is the store's: Redis
	 * hands it to the longest waiter (about 4,000 switches in 6,000 sections), while on PostgreSQL the releasing
	 * JVM's own threads usually take the key back before another JVM's writer, woken by a NOTIFY, arrives (96 switches
	 * in one CI run on a fast 2-vCPU VM, 2026-11-28, where 100 was required until then).
	 */
	private static final int MIN_WORKER_SWITCHES = 10 * WORKERS;

	private static RedisServerProcess redis;

	private static MongoTestServer mongo;

	@TempDir
	Path dir;

	@BeforeAll
	static void startStores() {
		redis = RedisServerProcess.startOnFreePort();
		mongo = MongoTestServer.start();
	}

	@AfterAll
	static void stopStores() {
		if (redis != null) {
			redis.close();
		}
		if (mongo != null) {
			mongo.close();
		}
	}

	@Test
	void redisWorkersNeverOverlapAndCountExactly() throws IOException {
		fuzz("redis", Stores.workerArgs(redis), "5ms");
	}

	@Test
	void mongoWorkersNeverOverlapAndCountExactly() throws IOException {
		fuzz("mongo", Stores.workerArgs(mongo), "20ms");
	}

	// The database servers start on first use, in the test, so a missing binary skips only that store's test.
	@Test
	void postgresqlWorkersNeverOverlapAndCountExactly() throws IOException {
		fuzz("postgresql", Stores.workerArgs(TestDatabase.POSTGRESQL), "20ms");
	}

	@Test
	void mariadbWorkersNeverOverlapAndCountExactly() throws IOException {
		fuzz("mariadb", Stores.workerArgs(TestDatabase.MARIADB), "20ms");
	}

	// Mongo and MariaDB waiters poll (no release signal), so a longer delay keeps 12 pollers from starving the server of CPU.
	private void fuzz(String store, List<String> storeArgs, String retryDelay) throws IOException {
		Path counterFile = dir.resolve("counter");
		UnguardedCounter counter = new UnguardedCounter(counterFile);
		List<WorkerProcess> workers = new ArrayList<>();
		List<Path> logs = new ArrayList<>();
		long started = System.nanoTime();
		long go;
		try {
			for (int w = 0; w < WORKERS; w++) {
				Path log = dir.resolve("worker-" + w + ".log");
				logs.add(log);
				List<String> args = new ArrayList<>(storeArgs);
				args.add("--worker.delay=" + retryDelay);
				args.addAll(List.of("--worker.mode=fuzz", "--worker.id=" + w, "--worker.key=fuzz-" + store,
						"--worker.threads=" + THREADS, "--worker.iterations=" + ITERATIONS,
						"--worker.counter=" + counterFile, "--worker.log=" + log));
				workers.add(WorkerProcess.start(store + "-fuzz-" + w, args));
			}
			// The start barrier: every JVM is up before any section runs.
			for (WorkerProcess worker : workers) {
				worker.awaitLine("READY", Duration.ofMinutes(2));
			}
			go = System.nanoTime();
			for (WorkerProcess worker : workers) {
				worker.send("GO");
			}
			for (WorkerProcess worker : workers) {
				assertThat(worker.awaitLine("DONE", Duration.ofMinutes(4))).isEqualTo("DONE errors=0");
				assertThat(worker.awaitExit(Duration.ofSeconds(30))).isZero();
			}
		}
		finally {
			WorkerProcess.closeAll(new ArrayList<>(workers));
		}
		long finished = System.nanoTime();
		List<Interval> intervals = new ArrayList<>();
		for (Path log : logs) {
			intervals.addAll(IntervalLog.read(log));
			Files.copy(log, Reports.dir().resolve(store + "-" + log.getFileName()),
					java.nio.file.StandardCopyOption.REPLACE_EXISTING);
		}
		IntervalChecker.Result result = IntervalChecker.check(intervals);
		int expected = WORKERS * THREADS * ITERATIONS;
		Reports.figure(store + ".fuzz.processes x threads x iterations", WORKERS + "x" + THREADS + "x" + ITERATIONS);
		Reports.figure(store + ".fuzz.finalCount", counter.value() + " (expected " + expected + ")");
		Reports.figure(store + ".fuzz.intervalsChecked", result.intervals());
		Reports.figure(store + ".fuzz.overlaps", result.overlaps().size());
		Reports.figure(store + ".fuzz.tokenInversions", result.tokenInversions().size());
		Reports.figure(store + ".fuzz.workerSwitches", result.workerSwitches() + " of " + (result.intervals() - 1)
				+ " consecutive pairs (minimum " + MIN_WORKER_SWITCHES + ")");
		Reports.figure(store + ".fuzz.wallTime", Duration.ofNanos(finished - started).toMillis() + " ms (from GO: "
				+ Duration.ofNanos(finished - go).toMillis() + " ms)");
		assertThat(counter.value()).isEqualTo(expected);
		assertThat(result.intervals()).isEqualTo(expected);
		assertThat(result.overlaps()).isEmpty();
		assertThat(result.tokenInversions()).isEmpty();
		assertThat(result.workerSwitches()).as("times consecutive sections came from different workers")
			.isGreaterThanOrEqualTo(MIN_WORKER_SWITCHES);
	}

}
