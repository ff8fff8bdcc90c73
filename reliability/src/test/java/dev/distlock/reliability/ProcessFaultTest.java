package dev.distlock.reliability;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.distlock.core.LockExtendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockReleaseException;
import dev.distlock.core.LockTemplate;
import dev.distlock.jdbc.testsupport.TestDatabase;
import dev.distlock.mongo.testsupport.MongoTestServer;
import dev.distlock.redis.testsupport.RedisServerProcess;
import dev.distlock.reliability.worker.FencedFile;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Faults of the holder process, on real processes and real stores: kill -9 (another process must take over within
 * the lease plus one second, plus the scheduling delay this machine measured meanwhile) and SIGSTOP past the lease (on SIGCONT the paused holder learns it lost the lock, its
 * extend and release fail typed, a fenced resource rejects its stale write, and the new holder is untouched).
 */
class ProcessFaultTest {

	private static final Duration LEASE = Duration.ofSeconds(2);

	private static RedisServerProcess redis;

	private static MongoTestServer mongo;

	private static Stores stores;

	@TempDir
	Path dir;

	@BeforeAll
	static void startStores() {
		redis = RedisServerProcess.startOnFreePort();
		mongo = MongoTestServer.start();
		stores = new Stores();
	}

	@AfterAll
	static void stopStores() throws Exception {
		if (stores != null) {
			stores.close();
		}
		if (redis != null) {
			redis.close();
		}
		if (mongo != null) {
			mongo.close();
		}
	}

	@Test
	void redisKilledHolderIsReplacedWithinLeasePlusOneSecond() {
		killedHolderIsReplaced("redis", Stores.workerArgs(redis));
	}

	@Test
	void mongoKilledHolderIsReplacedWithinLeasePlusOneSecond() {
		killedHolderIsReplaced("mongo", Stores.workerArgs(mongo));
	}

	// The database servers start on first use, in the test, so a missing binary skips only that store's tests.
	@Test
	void postgresqlKilledHolderIsReplacedWithinLeasePlusOneSecond() {
		killedHolderIsReplaced("postgresql", Stores.workerArgs(TestDatabase.POSTGRESQL));
	}

	@Test
	void mariadbKilledHolderIsReplacedWithinLeasePlusOneSecond() {
		killedHolderIsReplaced("mariadb", Stores.workerArgs(TestDatabase.MARIADB));
	}

	@Test
	void redisPausedHolderLosesItsLockAndItsStaleWriteIsFenced() {
		pausedHolderIsFenced("redis", Stores.workerArgs(redis), stores.redis(redis));
	}

	@Test
	void mongoPausedHolderLosesItsLockAndItsStaleWriteIsFenced() {
		pausedHolderIsFenced("mongo", Stores.workerArgs(mongo), stores.mongo(mongo));
	}

	@Test
	void postgresqlPausedHolderLosesItsLockAndItsStaleWriteIsFenced() {
		pausedHolderIsFenced("postgresql", Stores.workerArgs(TestDatabase.POSTGRESQL),
				stores.jdbc(TestDatabase.POSTGRESQL));
	}

	@Test
	void mariadbPausedHolderLosesItsLockAndItsStaleWriteIsFenced() {
		pausedHolderIsFenced("mariadb", Stores.workerArgs(TestDatabase.MARIADB), stores.jdbc(TestDatabase.MARIADB));
	}

	private void killedHolderIsReplaced(String store, List<String> storeArgs) {
		String key = "kill9-" + store;
		List<WorkerProcess> workers = new ArrayList<>();
		try {
			WorkerProcess holder = WorkerProcess.start(store + "-kill9-holder",
					args(storeArgs, "--worker.mode=hold", "--worker.key=" + key, "--worker.lease=" + LEASE.toMillis() + "ms"));
			workers.add(holder);
			long holderToken = token(holder.awaitLine("ACQUIRED", Duration.ofSeconds(60)));
			// Only now start the taker, so it cannot take the key before the holder does.
			WorkerProcess taker = WorkerProcess.start(store + "-kill9-taker",
					args(storeArgs, "--worker.mode=acquire", "--worker.key=" + key, "--worker.delay=20ms"));
			workers.add(taker);
			taker.awaitLine("READY", Duration.ofSeconds(60));
			// The holder renews every third of its lease; outlive two renewals so the kill lands on a renewed lease.
			sleep(LEASE.plusMillis(200));
			String acquired;
			long killedAt;
			Duration late;
			try (SchedulingDelay delay = SchedulingDelay.measure()) {
				killedAt = System.nanoTime();
				holder.kill9();
				acquired = taker.awaitLine("ACQUIRED", LEASE.plusSeconds(10));
				late = delay.longest();
			}
			Duration recovery = Duration.ofNanos(nanos(acquired) - killedAt);
			// One second, plus what this machine measured of waking a sleeping thread late, twice: the taker's poll
			// sleep and its acquire each wait for a core. A few milliseconds on a quiet machine.
			Duration bound = LEASE.plusSeconds(1).plus(late.multipliedBy(2));
			Reports.figure(store + ".kill9.lease", LEASE.toMillis() + " ms");
			Reports.figure(store + ".kill9.recovery", recovery.toMillis() + " ms (bound " + bound.toMillis()
					+ " ms, scheduling delay measured " + late.toMillis() + " ms)");
			assertThat(recovery).isLessThanOrEqualTo(bound);
			assertThat(token(acquired)).isGreaterThan(holderToken);
			assertThat(taker.awaitExit(Duration.ofSeconds(30))).isZero();
		}
		finally {
			WorkerProcess.closeAll(new ArrayList<>(workers));
		}
	}

	private void pausedHolderIsFenced(String store, List<String> storeArgs, LockTemplate template) {
		String key = "sigstop-" + store;
		FencedFile fenced = new FencedFile(dir.resolve("fenced-" + store));
		Duration staleLease = Duration.ofSeconds(1);
		// Warm this JVM's connections and scripts, so the take-over time below measures the lease, not class loading.
		template.acquire(key + "-warmup").release();
		try (WorkerProcess stale = WorkerProcess.start(store + "-sigstop-holder",
				args(storeArgs, "--worker.mode=stale", "--worker.key=" + key, "--worker.fenced=" + fenced.toString(),
						"--worker.lease=" + staleLease.toMillis() + "ms"))) {
			long staleToken = token(stale.awaitLine("ACQUIRED", Duration.ofSeconds(60)));
			long pausedAt = System.nanoTime();
			stale.pause();
			// The paused process cannot renew; the store lets its lease run out and hands the key to us.
			LockHandle current = template.acquire(key,
					LockOptions.builder().timeout(Duration.ofSeconds(30)).delay(Duration.ofMillis(20)).waitUpTo(Duration.ofSeconds(10)).build());
			Reports.figure(store + ".sigstop.takeoverAfterPause", Duration.ofNanos(System.nanoTime() - pausedAt).toMillis()
					+ " ms (stale lease " + staleLease.toMillis() + " ms)");
			assertThat(current.fencingToken()).isGreaterThan(staleToken);
			assertThat(fenced.write(current.fencingToken(), "current")).isTrue();
			stale.resume();
			stale.awaitLine("LOST", Duration.ofSeconds(10));
			stale.send("GO");
			assertThat(stale.awaitLine("WRITE", Duration.ofSeconds(10))).isEqualTo("WRITE rejected");
			assertThat(stale.awaitLine("HELD", Duration.ofSeconds(10))).isEqualTo("HELD false");
			assertThat(stale.awaitLine("EXTEND", Duration.ofSeconds(10)))
				.isEqualTo("EXTEND " + LockExtendException.class.getName());
			assertThat(stale.awaitLine("RELEASE", Duration.ofSeconds(10)))
				.isEqualTo("RELEASE " + LockReleaseException.class.getName());
			String exit = stale.awaitLine("EXIT", Duration.ofSeconds(10));
			Reports.figure(store + ".sigstop.staleMethodOutcome", exit);
			assertThat(exit).isEqualTo("EXIT " + LockReleaseException.class.getName());
			assertThat(stale.awaitExit(Duration.ofSeconds(30))).isZero();
			// The new holder was never disturbed: the store still has its token and the fenced value is its own.
			assertThat(current.isHeld()).isTrue();
			assertThat(template.isLocked(key)).isTrue();
			current.extend(Duration.ofSeconds(30));
			assertThat(fenced.read()).isEqualTo(new FencedFile.State(current.fencingToken(), "current"));
			current.release();
			assertThat(template.isLocked(key)).isFalse();
		}
	}

	private static List<String> args(List<String> storeArgs, String... more) {
		List<String> all = new ArrayList<>(storeArgs);
		all.addAll(List.of(more));
		return all;
	}

	// "ACQUIRED <token> <nanoTime>"
	private static long token(String line) {
		return Long.parseLong(line.split(" ")[1]);
	}

	private static long nanos(String line) {
		return Long.parseLong(line.split(" ")[2]);
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
