package dev.distlock.reliability;

import java.time.Duration;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import dev.distlock.core.DistributedLockException;
import dev.distlock.core.LockExtendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockOperations;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockReleaseException;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.LockTemplate;
import dev.distlock.jdbc.testsupport.MariaDbTestServer;
import dev.distlock.jdbc.testsupport.PostgresTestServer;
import dev.distlock.jdbc.testsupport.TestDatabase;
import dev.distlock.mongo.testsupport.MongoTestServer;
import dev.distlock.redis.testsupport.RedisServerProcess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The lock store goes away while a lock is held and comes back: every call in between fails with a typed error
 * within the configured client timeouts (never a hang), and locking works again once the store is back.
 */
class StoreRestartTest {

	/** RedisServerProcess's Lettuce command and connect timeout. */
	private static final Duration REDIS_TIMEOUT = Duration.ofSeconds(1);

	/** MongoTestServer's server selection plus read timeout: the longest one call may wait. */
	private static final Duration MONGO_TIMEOUT = MongoTestServer.SERVER_SELECTION_TIMEOUT
		.plus(MongoTestServer.READ_TIMEOUT);

	/**
	 * The JDBC pool's connection timeout here: with the server down, every call waits that long for a connection (a
	 * pooled one broke with the server, a new one is refused), as an application's pool decides; Hikari's default is
	 * 30 s.
	 */
	private static final Duration JDBC_TIMEOUT = Duration.ofSeconds(1);

	/**
	 * Scheduling slack on a busy 2-core machine (at a load average of 30 a call here took 1.9 s beyond its timeouts).
	 * A hang, or a call left to the clients' own defaults (Lettuce 60 s, the Mongo driver's 30 s server selection),
	 * exceeds the bound by far.
	 */
	private static final Duration SLACK = Duration.ofSeconds(4);

	/**
	 * The most store calls one operation here makes while the store is down: a call whose connection broke mid-way may
	 * have run, so the acquire's clean-up or the release's and extend's replay follows it, each within the timeout.
	 */
	private static final int CALLS_PER_OPERATION = 2;

	private static final LockOptions OPTIONS = LockOptions.builder().timeout(Duration.ofSeconds(2)).build();

	@Test
	void redisCrashMidLockFailsTypedWithinTheTimeoutAndRecoversAfterRestart() throws Exception {
		try (RedisServerProcess redis = RedisServerProcess.startOnFreePort(); Stores stores = new Stores()) {
			LockTemplate template = stores.redis(redis);
			LockHandle held = template.acquire("restart", OPTIONS);
			redis.kill();
			failsTypedWithin("redis", template, held, REDIS_TIMEOUT.multipliedBy(CALLS_PER_OPERATION).plus(SLACK));
			redis.start();
			// Without persistence Redis comes back empty: the old lock and its fence hash are gone. The next token is
			// max(counter + 1, server TIME in microseconds), so with no counter it comes from the server clock, which
			// has moved on since the token before: tokens still rise across the lost data.
			LockHandle again = recovers("redis", () -> template.acquire("restart", OPTIONS));
			Reports.figure("redis.restart.fencingTokenBefore/After", held.fencingToken() + "/" + again.fencingToken()
					+ " (no persistence: fence hash lost, token from server TIME)");
			assertThat(again.fencingToken()).isGreaterThan(held.fencingToken());
			again.release();
		}
	}

	@Test
	void mongoStopMidLockFailsTypedWithinTheTimeoutAndRecoversAfterRestart() throws Exception {
		try (MongoTestServer mongo = MongoTestServer.startInProcess(); Stores stores = new Stores()) {
			LockTemplate template = stores.mongo(mongo);
			LockHandle held = template.acquire("restart", OPTIONS);
			mongo.stop();
			failsTypedWithin("mongo", template, held, MONGO_TIMEOUT.multipliedBy(CALLS_PER_OPERATION).plus(SLACK));
			mongo.restart();
			// The data survived, so the old lock blocks until its lease ends and the fencing token keeps rising.
			LockHandle again = recovers("mongo", () -> template.acquire("restart",
					OPTIONS.toBuilder().delay(Duration.ofMillis(50)).waitUpTo(Duration.ofSeconds(10)).build()));
			assertThat(again.fencingToken()).isGreaterThan(held.fencingToken());
			Reports.figure("mongo.restart.fencingTokenBefore/After", held.fencingToken() + "/" + again.fencingToken());
			again.release();
		}
	}

	@Test
	void postgresqlStopMidLockFailsTypedWithinTheTimeoutAndRecoversAfterRestart() throws Exception {
		PostgresTestServer server = PostgresTestServer.shared();
		jdbcStopMidLock("postgresql", TestDatabase.POSTGRESQL, server::stop, server::start);
	}

	@Test
	void mariadbCrashMidLockFailsTypedWithinTheTimeoutAndRecoversAfterRestart() throws Exception {
		MariaDbTestServer server = MariaDbTestServer.shared();
		jdbcStopMidLock("mariadb", TestDatabase.MARIADB, server::stop, server::start);
	}

	// PostgreSQL stops "immediate" and MariaDB is killed: neither shuts down cleanly, as in a crash.
	private static void jdbcStopMidLock(String store, TestDatabase database, Runnable stop, Runnable start)
			throws Exception {
		database.dataSource();
		try (HikariDataSource pool = pool(store, database); Stores stores = new Stores()) {
			LockTemplate template = stores.jdbc(database, pool);
			LockHandle held = template.acquire("restart", OPTIONS);
			stop.run();
			try {
				failsTypedWithin(store, template, held, JDBC_TIMEOUT.multipliedBy(CALLS_PER_OPERATION).plus(SLACK));
			}
			finally {
				start.run();
			}
			// The row survived the crash, so the old lock blocks until its lease ends and the fencing token keeps
			// rising.
			LockHandle again = recovers(store, () -> template.acquire("restart",
					OPTIONS.toBuilder().delay(Duration.ofMillis(50)).waitUpTo(Duration.ofSeconds(10)).build()));
			assertThat(again.fencingToken()).isGreaterThan(held.fencingToken());
			Reports.figure(store + ".restart.fencingTokenBefore/After", held.fencingToken() + "/" + again.fencingToken());
			again.release();
			assertThat(template.isLocked("restart")).isFalse();
		}
	}

	private static HikariDataSource pool(String store, TestDatabase database) {
		HikariConfig config = Stores.poolConfig(database, store + "-restart", 4);
		config.setConnectionTimeout(JDBC_TIMEOUT.toMillis());
		return new HikariDataSource(config);
	}

	private static void failsTypedWithin(String store, LockTemplate template, LockHandle held, Duration bound) {
		Duration acquire = timed(store + ".restart.acquireWhileDown", () -> template.acquire("other", OPTIONS),
				LockStoreException.class);
		Duration isLocked = timed(store + ".restart.isLockedWhileDown", () -> template.isLocked("restart"),
				LockStoreException.class);
		Duration extend = timed(store + ".restart.extendWhileDown", () -> {
			held.extend(Duration.ofSeconds(2));
			return null;
		}, LockExtendException.class);
		Duration release = timed(store + ".restart.releaseWhileDown", () -> {
			held.release();
			return null;
		}, LockReleaseException.class);
		Reports.figure(store + ".restart.bound", bound.toMillis() + " ms");
		assertThat(acquire).isLessThanOrEqualTo(bound);
		assertThat(isLocked).isLessThanOrEqualTo(bound);
		assertThat(extend).isLessThanOrEqualTo(bound);
		assertThat(release).isLessThanOrEqualTo(bound);
		// The failed release still left the handle invalid and out of the registry.
		assertThat(new LockOperations(template).heldLocks()).isEmpty();
	}

	private static Duration timed(String figure, Supplier<?> call, Class<? extends DistributedLockException> expected) {
		long start = System.nanoTime();
		Throwable thrown = catchThrowable(call::get);
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		Reports.figure(figure, took.toMillis() + " ms, " + (thrown != null ? thrown.getClass().getSimpleName() : "no error"));
		assertThat(thrown).isInstanceOf(expected);
		return took;
	}

	// Clients reconnect by themselves; poll until a lock can be had again, and report how long that took.
	private static LockHandle recovers(String store, Supplier<LockHandle> acquire) {
		long start = System.nanoTime();
		long deadline = start + Duration.ofSeconds(20).toNanos();
		while (true) {
			try {
				LockHandle handle = acquire.get();
				Reports.figure(store + ".restart.recovery", Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms");
				return handle;
			}
			catch (LockStoreException ex) {
				if (System.nanoTime() > deadline) {
					throw ex;
				}
			}
		}
	}

}
