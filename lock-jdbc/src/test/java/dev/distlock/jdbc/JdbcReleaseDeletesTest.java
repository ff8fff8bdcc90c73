package dev.distlock.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.core.JdbcTemplate;

import com.zaxxer.hikari.HikariDataSource;

import dev.distlock.core.LockMode;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.internal.OwnerTokens;
import dev.distlock.core.spi.Acquisition;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.jdbc.testsupport.JdbcStoreInspector;
import dev.distlock.jdbc.testsupport.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The holder's release of a plain exclusive lock (a lease, no lock ID) deletes the key's row, as the floor's DELETE
 * does, and keeps every guarantee: fencing tokens still increase per key, a waiting writer's mark keeps the row (and is
 * woken), a replayed release answers "released" while the lease runs, and a lock taken away by force answers "lost".
 * Locks without expiry, with a lock ID or with little lease left keep the row and its release mark.
 */
class JdbcReleaseDeletesTest {

	/**
	 * The faults are injected into the statements of the pool's connections; on MariaDB server-side prepares would send
	 * the release past them, on the driver's own connection.
	 */
	private static final JdbcLockSettings THROUGH_THE_POOL = JdbcLockSettings.defaults().withServerPrepares(false);

	private static final OwnerDetails OWNER = new OwnerDetails("release-deletes", "host");

	private static final String TABLE = JdbcLockSettings.DEFAULT_TABLE;

	private static LockRequest exclusive(String key, Duration lease, String lockId, boolean noExpiry) {
		return new LockRequest(key, OwnerTokens.next(), lease, LockMode.EXCLUSIVE, 1, OWNER, lockId, noExpiry);
	}

	private static LockRequest plain(String key) {
		return exclusive(key, Duration.ofSeconds(30), null, false);
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aPlainReleaseLeavesNoRowAndTheNextHoldersFencingTokenIsStillLarger(TestDatabase db) {
		JdbcLockProvider provider = db.provider(JdbcLockSettings.defaults());
		JdbcStoreInspector inspector = new JdbcStoreInspector(db.dataSource(), db.dialect(), TABLE);
		String key = "deletes:plain:" + System.nanoTime();
		List<Long> tokens = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			Lease lease = provider.tryAcquire(plain(key)).orElseThrow();
			assertThat(inspector.rows(key)).containsExactly(key + "/");
			assertThat(lease.release()).isTrue();
			assertThat(inspector.rows(key)).as("no row after release " + i).isEmpty();
			assertThat(lease.release()).as("a second call answers as the first").isTrue();
			tokens.add(lease.fencingToken());
		}
		assertThat(tokens).isSorted().doesNotHaveDuplicates();
		provider.close();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void locksWithoutExpiryWithALockIdOrWithLittleLeaseLeftKeepTheRowWithTheirReleaseMark(TestDatabase db) {
		JdbcLockProvider provider = db.provider(JdbcLockSettings.defaults());
		JdbcTemplate jdbc = new JdbcTemplate(db.dataSource());
		String prefix = "deletes:kept:" + System.nanoTime();
		Map<String, LockRequest> requests = Map.of(prefix + ":no-expiry",
				exclusive(prefix + ":no-expiry", Duration.ofSeconds(30), null, true), prefix + ":lock-id",
				exclusive(prefix + ":lock-id", Duration.ofSeconds(30), "id-" + prefix, false), prefix + ":short",
				exclusive(prefix + ":short", Duration.ofSeconds(7), null, false));
		requests.forEach((key, request) -> {
			Lease lease = provider.tryAcquire(request).orElseThrow();
			assertThat(lease.release()).as(key).isTrue();
			assertThat(jdbc.queryForList("SELECT token, released FROM " + TABLE + " WHERE lock_key = ?", key))
				.as(key)
				.singleElement()
				.satisfies(row -> assertThat(row.get("token")).isNull())
				.satisfies(row -> assertThat(row.get("released")).isEqualTo(request.token()));
			assertThat(lease.release()).as(key + ", again").isTrue();
		});
		provider.close();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aReleaseWhoseFirstReplyWasLostAnswersReleasedAndLeavesNoRow(TestDatabase db) {
		db.dataSource();
		try (HikariDataSource pool = db.pool(db.jdbcUrl(db.port()), 2)) {
			AtomicBoolean loseNextDeleteReply = new AtomicBoolean();
			AtomicInteger statements = new AtomicInteger();
			AtomicReference<Runnable> beforeLoss = new AtomicReference<>(() -> {
			});
			JdbcLockProvider provider = new JdbcLockProvider(
					losingDeleteReply(pool, loseNextDeleteReply, beforeLoss, statements),
					db.dialect(), THROUGH_THE_POOL);
			JdbcStoreInspector inspector = new JdbcStoreInspector(db.dataSource(), db.dialect(), TABLE);
			String key = "deletes:replay:" + System.nanoTime();
			Lease lease = provider.tryAcquire(plain(key)).orElseThrow();

			loseNextDeleteReply.set(true);
			statements.set(0);
			assertThat(lease.release()).as("released, not lost").isTrue();
			// The DELETE that ran, then the retry: the DELETE, the kept-row release and the read of the row.
			assertThat(statements).hasValue(4);
			assertThat(loseNextDeleteReply).isFalse();
			assertThat(inspector.rows(key)).isEmpty();

			// Between the lost reply and the retry the key is granted to another: the row carries a later fencing
			// token, written after this lease's own release freed it, while this lease still runs.
			Lease second = provider.tryAcquire(plain(key)).orElseThrow();
			JdbcLockProvider other = db.provider(JdbcLockSettings.defaults());
			List<Lease> taken = new ArrayList<>();
			beforeLoss.set(() -> taken.add(other.tryAcquire(plain(key)).orElseThrow()));
			loseNextDeleteReply.set(true);
			assertThat(second.release()).as("released, not lost").isTrue();
			assertThat(taken).singleElement().satisfies(lease3 -> assertThat(lease3.fencingToken())
				.isGreaterThan(second.fencingToken()));
			assertThat(inspector.held(key)).as("the other holder's lock, untouched").containsExactly(key);
			assertThat(taken.get(0).release()).isTrue();
			assertThat(inspector.rows(key)).isEmpty();
			other.close();
			provider.close();
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aReleaseTheServerRollsBackAsADeadlockVictimIsRunAgainAndReleases(TestDatabase db) {
		db.dataSource();
		try (HikariDataSource pool = db.pool(db.jdbcUrl(db.port()), 2)) {
			AtomicInteger victims = new AtomicInteger();
			AtomicInteger statements = new AtomicInteger();
			JdbcLockProvider provider = new JdbcLockProvider(deadlockingDeletes(pool, victims, statements),
					db.dialect(), THROUGH_THE_POOL);
			JdbcStoreInspector inspector = new JdbcStoreInspector(db.dataSource(), db.dialect(), TABLE);
			String key = "deletes:deadlock:" + System.nanoTime();
			Lease lease = provider.tryAcquire(plain(key)).orElseThrow();

			victims.set(2); // InnoDB's answer to a release caught in a cycle with other sessions' inserts of the row
			statements.set(0);
			assertThat(lease.release()).as("released, as a healthy store answers, no error").isTrue();
			assertThat(victims).as("both rolled-back DELETEs, then the one that ran").hasValue(0);
			assertThat(statements).hasValue(3);
			assertThat(inspector.rows(key)).isEmpty();

			Lease next = provider.tryAcquire(plain(key)).orElseThrow();
			victims.set(5); // a deadlock every time: the release gives up after five and says why, typed
			assertThatThrownBy(next::release).isInstanceOf(dev.distlock.core.LockStoreException.class)
				.hasMessageContaining("40001");
			assertThat(inspector.held(key)).as("held until its lease ends, as after any failed release")
				.containsExactly(key);
			provider.forceRelease(key);
			provider.close();
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aLockForcedAwayAnswersLostThoughItsLeaseStillRuns(TestDatabase db) {
		JdbcLockProvider provider = db.provider(JdbcLockSettings.defaults());
		JdbcStoreInspector inspector = new JdbcStoreInspector(db.dataSource(), db.dialect(), TABLE);
		String key = "deletes:forced:" + System.nanoTime();
		Lease lease = provider.tryAcquire(plain(key)).orElseThrow();
		assertThat(provider.forceRelease(key)).isTrue();
		assertThat(lease.release()).as("the row still carries this grant's fencing token: taken away").isFalse();
		assertThat(inspector.rows(key)).as("the forced release keeps the row").containsExactly(key + "/");
		assertThat(inspector.held(key)).isEmpty();
		provider.close();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aReleaseWhileAWriterWaitsKeepsTheRowWithTheWritersMarkAndWakesIt(TestDatabase db) throws Exception {
		JdbcLockProvider provider = db.provider(JdbcLockSettings.defaults());
		JdbcTemplate jdbc = new JdbcTemplate(db.dataSource());
		String key = "deletes:writer:" + System.nanoTime();
		LockRequest holding = plain(key);
		Lease holder = provider.tryAcquire(holding).orElseThrow();
		LockRequest writer = plain(key);
		try (Acquisition waiting = provider.begin(writer)) {
			assertThat(waiting.tryOnce()).isEmpty(); // refused: the writer marks the row
			assertThat(holder.release()).isTrue();
			assertThat(jdbc.queryForList("SELECT token, waiter, released FROM " + TABLE
					+ " WHERE lock_key = ?", key))
				.singleElement()
				.satisfies(row -> assertThat(row.get("token")).isNull())
				.satisfies(row -> assertThat(row.get("waiter")).as("the writer's mark: its token, behind its LISTEN "
						+ "connection's tag on PostgreSQL")
					.isEqualTo(db.dialect() == JdbcDialect.POSTGRESQL
							? PostgresListener.mark(provider.wakeups().tag(), writer.token()) : writer.token()))
				.satisfies(row -> assertThat(row.get("released")).isEqualTo(holding.token()));
			assertThat(waiting.awaitSignal(Duration.ofMinutes(1))).as("woken by the release").isTrue();
			Lease granted = waiting.tryOnce().orElseThrow().lease();
			assertThat(granted.fencingToken()).isGreaterThan(holder.fencingToken());
			// The grant ended the writer's priority. On PostgreSQL its waiter_until stays (other waiters may still be
			// notified) and the grant saw it: its release keeps the row first, in one statement. MariaDB's deletes it.
			assertThat(granted.release()).isTrue();
			List<Map<String, Object>> rows = jdbc.queryForList("SELECT waiter, released FROM " + TABLE
					+ " WHERE lock_key = ?", key);
			if (db.dialect() == JdbcDialect.POSTGRESQL) {
				assertThat(rows).singleElement()
					.satisfies(row -> assertThat(row.get("waiter")).isNull())
					.satisfies(row -> assertThat(row.get("released")).isEqualTo(writer.token()));
			}
			else {
				assertThat(rows).isEmpty();
			}
		}
		provider.close();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aReleaseWhileAReaderWaitsWakesItAndOnPostgresKeepsTheRowItsReleaseNotifiedThrough(TestDatabase db)
			throws Exception {
		JdbcLockProvider provider = db.provider(JdbcLockSettings.defaults());
		JdbcTemplate jdbc = new JdbcTemplate(db.dataSource());
		String key = "deletes:reader:" + System.nanoTime();
		LockRequest holding = plain(key);
		Lease holder = provider.tryAcquire(holding).orElseThrow();
		LockRequest reader = new LockRequest(key, OwnerTokens.next(), Duration.ofSeconds(30), LockMode.SHARED, 3, OWNER);
		try (Acquisition waiting = provider.begin(reader)) {
			// Refused: on PostgreSQL the reader marks the row's waiter_until (no priority), which the grant never saw.
			assertThat(waiting.tryOnce()).isEmpty();
			assertThat(holder.release()).isTrue();
			List<Map<String, Object>> rows = jdbc.queryForList("SELECT token, released FROM " + TABLE
					+ " WHERE lock_key = ?", key);
			if (db.dialect() == JdbcDialect.POSTGRESQL) {
				// The deleting release refused the marked row; the notifying UPDATE released it.
				assertThat(rows).singleElement()
					.satisfies(row -> assertThat(row.get("token")).isNull())
					.satisfies(row -> assertThat(row.get("released")).isEqualTo(holding.token()));
			}
			else {
				assertThat(rows).isEmpty(); // MariaDB's readers leave no mark: the row goes
			}
			assertThat(waiting.awaitSignal(Duration.ofMinutes(1))).as("woken by the release").isTrue();
			Lease granted = waiting.tryOnce().orElseThrow().lease();
			assertThat(granted.fencingToken()).isGreaterThan(holder.fencingToken());
			assertThat(granted.release()).isTrue();
		}
		assertThat(provider.isLocked(key)).isFalse();
		provider.close();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aSharedGrantAfterADeletedRowMakesTheKeyRowAgainAndKeepsWritersOut(TestDatabase db) {
		JdbcLockProvider provider = db.provider(JdbcLockSettings.defaults());
		String key = "deletes:shared:" + System.nanoTime();
		Lease writer = provider.tryAcquire(plain(key)).orElseThrow();
		assertThat(writer.release()).isTrue();
		Lease reader = provider.tryAcquire(new LockRequest(key, OwnerTokens.next(), Duration.ofSeconds(30),
				LockMode.SHARED, 2, OWNER)).orElseThrow();
		assertThat(reader.fencingToken()).isGreaterThan(writer.fencingToken());
		assertThat(provider.tryAcquire(plain(key))).as("a writer while the reader holds").isEmpty();
		assertThat(reader.release()).isTrue();
		Lease next = provider.tryAcquire(plain(key)).orElseThrow();
		assertThat(next.fencingToken()).isGreaterThan(reader.fencingToken());
		assertThat(next.release()).isTrue();
		provider.close();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aReleaseKeepsTheRowWhileAnotherAttemptOfTheSameProviderOnTheKeyIsInFlightAndThatAttemptGetsALaterToken(
			TestDatabase db) throws Exception {
		db.dataSource();
		try (HikariDataSource pool = db.pool(db.jdbcUrl(db.port()), 4)) {
			// The other attempt is held before it borrows its connection: counted in flight, nothing sent yet. An
			// insert that had drawn its token and stalled there is what the kept row protects against.
			CountDownLatch borrowing = new CountDownLatch(1);
			CountDownLatch go = new CountDownLatch(1);
			AtomicReference<Thread> stalled = new AtomicReference<>();
			DataSource stalling = (DataSource) Proxy.newProxyInstance(JdbcReleaseDeletesTest.class.getClassLoader(),
					new Class<?>[] { DataSource.class }, (proxy, method, args) -> {
						if (method.getName().equals("getConnection") && Thread.currentThread() == stalled.get()) {
							borrowing.countDown();
							go.await();
						}
						return invoke(pool, method, args);
					});
			JdbcLockProvider provider = new JdbcLockProvider(stalling, db.dialect(), THROUGH_THE_POOL);
			JdbcStoreInspector inspector = new JdbcStoreInspector(db.dataSource(), db.dialect(), TABLE);
			String key = "deletes:in-flight:" + System.nanoTime();
			Lease held = provider.tryAcquire(plain(key)).orElseThrow();

			CompletableFuture<Lease> other = new CompletableFuture<>();
			Thread attempt = new Thread(() -> attempt(provider, key, other));
			stalled.set(attempt);
			attempt.start();
			assertThat(borrowing.await(1, TimeUnit.MINUTES)).isTrue();

			assertThat(held.release()).isTrue();
			assertThat(inspector.rows(key)).as("kept, free, while the other attempt is in flight").containsExactly(key + "/");
			go.countDown();
			Lease granted = other.get(1, TimeUnit.MINUTES);
			assertThat(granted.fencingToken()).isGreaterThan(held.fencingToken());

			assertThat(granted.release()).isTrue();
			assertThat(inspector.rows(key)).as("nothing in flight: deleted").isEmpty();
			provider.close();
		}
	}

	/**
	 * The race between JVMs, played out on PostgreSQL: another client's transaction inserts the key's row, so this
	 * provider's insert (the first attempt on the key) draws its fencing token and then waits for that transaction;
	 * the other client then takes a later token on the row, runs the provider's own deleting release and commits.
	 * Without the key's fencing lock that delete removed the row, the waiting insert, checking again, wrote it with
	 * the earlier token, and the key's tokens went backwards; with it, the delete finds the insert's share and deletes
	 * nothing, the other client releases the row as a kept-row release does, and the insert's attempt is granted a
	 * later token. The key is not ASCII, so the insert and the delete agree on its fencing lock whatever the text's
	 * way there.
	 */
	@Test
	void onPostgresADeleteKeepsTheRowWhileAnotherClientsInsertOfTheKeyHasDrawnItsTokenSoTheInsertGetsALaterOne()
			throws Exception {
		TestDatabase db = TestDatabase.POSTGRESQL;
		JdbcLockProvider provider = db.provider(JdbcLockSettings.defaults());
		JdbcStoreInspector inspector = new JdbcStoreInspector(db.dataSource(), db.dialect(), TABLE);
		JdbcLockSettings settings = JdbcLockSettings.defaults();
		LockStatements sql = new LockStatements(db.dialect(), TABLE, settings.sequence(), settings.lockIdTable(),
				settings.sharedTable());
		String next = "nextval('" + settings.sequence() + "')";
		String key = "deletes:other-jvm:\u043a\u043b\u044e\u0447:\uD83D\uDD12:" + System.nanoTime();
		CompletableFuture<Lease> granted = new CompletableFuture<>();
		long otherToken;
		try (Connection other = db.dataSource().getConnection()) {
			other.setAutoCommit(false);
			update(other, "INSERT INTO " + TABLE + " (lock_key, token, fence, expires_at, shared_until) "
					+ "VALUES (?, 'other', " + next + ", clock_timestamp() + INTERVAL '1 minute', "
					+ "TIMESTAMPTZ '1970-01-01 00:00:00+00')", key);
			CompletableFuture.runAsync(() -> attempt(provider, key, granted));
			awaitWaiting(db, "transactionid");
			// The insert has drawn its token; the other client's grant takes a later one, then its release runs.
			update(other, "UPDATE " + TABLE + " SET fence = " + next + " WHERE lock_key = ?", key);
			try (PreparedStatement read = other.prepareStatement("SELECT fence FROM " + TABLE
					+ " WHERE lock_key = ?")) {
				read.setString(1, key);
				try (var rs = read.executeQuery()) {
					rs.next();
					otherToken = rs.getLong(1);
				}
			}
			assertThat(update(other, sql.deleteExclusive, key, "other")).as("the delete keeps the row").isZero();
			update(other, "UPDATE " + TABLE + " SET token = NULL, expires_at = clock_timestamp() WHERE lock_key = ?",
					key);
			other.commit();
		}
		Lease lease = granted.get(1, TimeUnit.MINUTES);
		assertThat(lease.fencingToken()).isGreaterThan(otherToken);
		assertThat(inspector.rows(key)).containsExactly(key + "/");
		assertThat(lease.release()).isTrue();
		provider.close();
	}

	/**
	 * The other half of the key's fencing lock on PostgreSQL: while a delete of the key holds it exclusive (here
	 * another client's transaction), an insert of the key waits before it draws its token, so its token is later than
	 * one drawn meanwhile.
	 */
	@Test
	void onPostgresAnInsertDrawsItsTokenOnlyOnceADeleteHoldingTheKeysFencingLockHasCommitted() throws Exception {
		TestDatabase db = TestDatabase.POSTGRESQL;
		JdbcLockProvider provider = db.provider(JdbcLockSettings.defaults());
		String key = "deletes:fencing-lock:" + System.nanoTime();
		CompletableFuture<Lease> granted = new CompletableFuture<>();
		long drawnMeanwhile;
		try (Connection deleting = db.dataSource().getConnection()) {
			deleting.setAutoCommit(false);
			update(deleting, "SELECT pg_advisory_xact_lock(hashtext(?), hashtext(?))", TABLE, key);
			CompletableFuture.runAsync(() -> attempt(provider, key, granted));
			awaitWaiting(db, "advisory");
			drawnMeanwhile = new JdbcTemplate(db.dataSource()).queryForObject(
					"SELECT nextval('" + JdbcLockSettings.defaults().sequence() + "')", Long.class);
			assertThat(granted).isNotDone();
			deleting.commit();
		}
		Lease lease = granted.get(1, TimeUnit.MINUTES);
		assertThat(lease.fencingToken()).isGreaterThan(drawnMeanwhile);
		assertThat(lease.release()).isTrue();
		provider.close();
	}

	/** A plain exclusive attempt on the key, on a thread of its own, completing {@code granted}. */
	private static void attempt(JdbcLockProvider provider, String key, CompletableFuture<Lease> granted) {
		try {
			granted.complete(provider.tryAcquire(plain(key)).orElseThrow());
		}
		catch (Throwable ex) {
			granted.completeExceptionally(ex);
		}
	}

	/** Waits until an insert of the key row on PostgreSQL waits for the given wait event (at most a minute). */
	private static void awaitWaiting(TestDatabase db, String waitEvent) throws InterruptedException {
		JdbcTemplate watch = new JdbcTemplate(db.dataSource());
		long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
		while (watch.queryForObject("SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event = ? "
				+ "AND query LIKE '%pg_advisory_xact_lock_shared%'", Integer.class, waitEvent) == 0) {
			assertThat(System.nanoTime() - deadline).as("the insert waits (" + waitEvent + ")").isNegative();
			Thread.sleep(5);
		}
	}

	/** Runs a statement on the connection: the rows it wrote (-1 for a query). */
	private static int update(Connection connection, String statement, Object... args) throws SQLException {
		try (PreparedStatement prepared = connection.prepareStatement(statement)) {
			for (int i = 0; i < args.length; i++) {
				prepared.setObject(i + 1, args[i]);
			}
			prepared.execute();
			return prepared.getUpdateCount();
		}
	}

	/**
	 * The pool, where a DELETE whose reply is to be lost runs on the server, then {@code beforeLoss}, and then fails as
	 * a broken connection would; every statement prepared is counted.
	 */
	private static DataSource losingDeleteReply(HikariDataSource pool, AtomicBoolean lose,
			AtomicReference<Runnable> beforeLoss, AtomicInteger statements) {
		return faultyDeletes(pool, statements, execution -> {
			Object result = execution.run();
			if (lose.compareAndSet(true, false)) {
				beforeLoss.get().run();
				throw new SQLException("the reply was lost", "08006");
			}
			return result;
		});
	}

	/**
	 * The pool, where each DELETE fails without running, as a deadlock victim the server rolled back (MariaDB's
	 * error 1213, SQLState 40001), while {@code victims} is above zero; every statement prepared is counted.
	 */
	private static DataSource deadlockingDeletes(HikariDataSource pool, AtomicInteger victims,
			AtomicInteger statements) {
		return faultyDeletes(pool, statements, execution -> {
			if (victims.getAndUpdate(v -> Math.max(0, v - 1)) > 0) {
				throw new java.sql.SQLTransactionRollbackException("Deadlock found when trying to get lock", "40001",
						1213);
			}
			return execution.run();
		});
	}

	/** A statement's own execution. */
	@FunctionalInterface
	private interface Execution {

		Object run() throws Throwable;

	}

	/** What running a DELETE does around its own execution. */
	@FunctionalInterface
	private interface DeleteFault {

		Object execute(Execution execution) throws Throwable;

	}

	/** The pool, where every execution of a DELETE goes through the fault; every statement prepared is counted. */
	private static DataSource faultyDeletes(HikariDataSource pool, AtomicInteger statements, DeleteFault fault) {
		ClassLoader loader = JdbcReleaseDeletesTest.class.getClassLoader();
		return (DataSource) Proxy.newProxyInstance(loader, new Class<?>[] { DataSource.class }, (proxy, method, args) -> {
			Object result = invoke(pool, method, args);
			if (!(result instanceof Connection connection)) {
				return result;
			}
			return Proxy.newProxyInstance(loader, new Class<?>[] { Connection.class }, (p, m, a) -> {
				Object made = invoke(connection, m, a);
				if (!m.getName().equals("prepareStatement")) {
					return made;
				}
				statements.incrementAndGet();
				if (!((String) a[0]).startsWith("DELETE")) {
					return made;
				}
				PreparedStatement statement = (PreparedStatement) made;
				return Proxy.newProxyInstance(loader, new Class<?>[] { PreparedStatement.class },
						(sp, sm, sa) -> sm.getName().startsWith("execute")
								? fault.execute(() -> invoke(statement, sm, sa)) : invoke(statement, sm, sa));
			});
		});
	}

	private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

}
