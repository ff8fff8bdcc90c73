package dev.distlock.jdbc;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.distlock.core.LockStoreException;
import dev.distlock.jdbc.testsupport.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every statement is bounded on the server: a statement that outlives its bound is cancelled there by the watchdog
 * (pgjdbc's cancel request, Connector/J's {@code KILL QUERY}) and the call fails with a typed error; the watchdog gives
 * every slot back, never while a cancel of its statement is in flight, and falls back to the driver's query timeout
 * when it has none free.
 */
class JdbcStatementBoundsTest {

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aStatementPastItsBoundIsCancelledOnTheServerAndFailsWithATypedError(TestDatabase db) throws Exception {
		LockDatabase database = new LockDatabase(db.dataSource(), db.dialect());
		database.run(null, "set up", 10_000, false, session -> {
			session.update("CREATE TABLE IF NOT EXISTS bounds_rows (id INT PRIMARY KEY, n INT NOT NULL)");
			session.update("DELETE FROM bounds_rows");
			return session.update("INSERT INTO bounds_rows (id, n) VALUES (1, 0)");
		});
		long started;
		try (Connection holder = db.dataSource().getConnection()) {
			// Another session holds the row's lock, as a stuck transaction would: the update waits past its bound.
			holder.setAutoCommit(false);
			try (Statement lock = holder.createStatement()) {
				lock.executeQuery("SELECT n FROM bounds_rows WHERE id = 1 FOR UPDATE").close();
			}
			started = System.nanoTime();
			assertThatThrownBy(() -> database.run("bounds:blocked", "update", 1_000, false,
					session -> session.update("UPDATE bounds_rows SET n = n + 1 WHERE id = 1")))
				.isInstanceOf(LockStoreException.class)
				.hasMessageContaining("failed to update for 'bounds:blocked'")
				.satisfies(ex -> assertThat(LockDatabase.mayHaveRun(ex.getCause())).isTrue());
			holder.rollback();
		}
		assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started)).isLessThan(15);
		awaitNoSharedSlotTaken();
		// The cancelled update applied nothing, and the connection went back to the pool in a usable state.
		List<Long> n = database.run(null, "read", 10_000, false,
				session -> session.query("SELECT n FROM bounds_rows WHERE id = 1", rs -> rs.getLong(1)));
		assertThat(n).containsExactly(0L);
	}

	@Test
	void anOwnerGivesItsSlotBackOnlyOnceTheCancelOfItsStatementHasReturned() throws Exception {
		CountDownLatch cancelled = new CountDownLatch(1);
		CountDownLatch letCancelReturn = new CountDownLatch(1);
		Statement statement = blockingCancel(cancelled, letCancelReturn);
		StatementWatchdog watchdog = new StatementWatchdog(2, TimeUnit.MINUTES.toNanos(5));
		int slot = watchdog.watch(statement, 0);
		assertThat(cancelled.await(30, TimeUnit.SECONDS)).isTrue();
		CompletableFuture<Void> released = CompletableFuture.runAsync(() -> watchdog.release(slot));
		// The cancel names the connection: until it returns, the connection must not run anything else.
		assertThatThrownBy(() -> released.get(300, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
		assertThat(watchdog.taken()).isEqualTo(1);
		letCancelReturn.countDown();
		released.get(30, TimeUnit.SECONDS);
		assertThat(watchdog.taken()).isZero();
	}

	@Test
	void anOwnerWhoseCancelDoesNotReturnGoesOnAndTheCancellerGivesTheSlotBackWhenItDoes() throws Exception {
		CountDownLatch cancelled = new CountDownLatch(1);
		CountDownLatch letCancelReturn = new CountDownLatch(1);
		StatementWatchdog watchdog = new StatementWatchdog(2, TimeUnit.MILLISECONDS.toNanos(100));
		int slot = watchdog.watch(blockingCancel(cancelled, letCancelReturn), 0);
		assertThat(cancelled.await(30, TimeUnit.SECONDS)).isTrue();
		Thread.currentThread().interrupt();
		watchdog.release(slot);
		assertThat(Thread.interrupted()).as("the interrupt status is kept").isTrue();
		assertThat(watchdog.taken()).isEqualTo(1);
		letCancelReturn.countDown();
		long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (watchdog.taken() != 0 && System.nanoTime() < end) {
			Thread.sleep(5);
		}
		assertThat(watchdog.taken()).isZero();
		assertThat(watchdog.watch(blockingCancel(new CountDownLatch(1), new CountDownLatch(0)), 60_000))
			.isNotNegative();
	}

	/** A statement whose {@code cancel()} says it was called, then returns only once let. */
	private static Statement blockingCancel(CountDownLatch cancelled, CountDownLatch letReturn) {
		return (Statement) Proxy.newProxyInstance(Statement.class.getClassLoader(), new Class<?>[] { Statement.class },
				(proxy, method, args) -> {
					if (method.getName().equals("cancel")) {
						cancelled.countDown();
						letReturn.await();
						return null;
					}
					throw new UnsupportedOperationException(method.getName());
				});
	}

	@Test
	void onPostgresAStatementUnderItsBoundRunsAndGivesItsSlotBack() throws Exception {
		LockDatabase database = new LockDatabase(TestDatabase.POSTGRESQL.dataSource(), JdbcDialect.POSTGRESQL);
		Long value = database.run(null, "sleep briefly", 2_000, false,
				session -> session.returning("SELECT 7 FROM pg_sleep(0.05)"));
		assertThat(value).isEqualTo(7L);
		awaitNoSharedSlotTaken();
	}

	@Test
	void theWatchdogCancelsOnlyOverdueStatementsAndSaysWhenItHasNoFreeSlot() throws Exception {
		StatementWatchdog watchdog = new StatementWatchdog(2);
		try (var connection = TestDatabase.POSTGRESQL.dataSource().getConnection();
				PreparedStatement overdue = connection.prepareStatement("SELECT 1 FROM pg_sleep(20)");
				var other = TestDatabase.POSTGRESQL.dataSource().getConnection();
				PreparedStatement quick = other.prepareStatement("SELECT 1")) {
			int first = watchdog.watch(overdue, 200);
			int second = watchdog.watch(quick, 60_000);
			assertThat(first).isNotNegative();
			assertThat(second).isNotNegative().isNotEqualTo(first);
			assertThat(watchdog.watch(quick, 60_000)).isEqualTo(-1);
			long started = System.nanoTime();
			assertThatThrownBy(overdue::executeQuery).isInstanceOf(SQLException.class)
				.satisfies(ex -> assertThat(((SQLException) ex).getSQLState()).isEqualTo("57014"));
			assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started)).isLessThan(15);
			watchdog.release(first);
			assertThat(quick.executeQuery().next()).isTrue();
			watchdog.release(second);
			assertThat(watchdog.taken()).isZero();
			watchdog.release(-1);
		}
	}

	/** Every slot is given back; another test's statement still running in this JVM may hold one for a moment. */
	private static void awaitNoSharedSlotTaken() throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (StatementWatchdog.SHARED.taken() != 0 && System.nanoTime() - deadline < 0) {
			Thread.sleep(20);
		}
		assertThat(StatementWatchdog.SHARED.taken()).isZero();
	}

}
