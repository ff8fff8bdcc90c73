package dev.distlock.jdbc;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.distlock.core.LockStoreException;
import dev.distlock.jdbc.testsupport.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every statement is bounded on the server: a statement that outlives its bound is cancelled there (by the watchdog on
 * PostgreSQL, by the driver's {@code max_statement_time} on MariaDB) and the call fails with a typed error; the
 * watchdog gives every slot back, and falls back to the driver's query timeout when it has none free.
 */
class JdbcStatementBoundsTest {

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aStatementPastItsBoundIsCancelledOnTheServerAndFailsWithATypedError(TestDatabase db) {
		LockDatabase database = new LockDatabase(db.dataSource(), db.dialect());
		String sleep = db == TestDatabase.POSTGRESQL ? "SELECT 1 FROM pg_sleep(20)" : "SELECT SLEEP(20)";
		long started = System.nanoTime();
		assertThatThrownBy(() -> database.run("bounds:sleep", "sleep", 1_000, false,
				session -> session.query(sleep, rs -> rs.getLong(1))))
			.isInstanceOf(LockStoreException.class)
			.hasMessageContaining("failed to sleep for 'bounds:sleep'")
			.satisfies(ex -> assertThat(LockDatabase.mayHaveRun(ex.getCause())).isTrue());
		assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started)).isLessThan(15);
		assertThat(StatementWatchdog.SHARED.taken()).isZero();
		// The connection went back to the pool in a usable state.
		java.util.List<Long> ping = database.run(null, "ping", 1_000, false,
				session -> session.query("SELECT 1", rs -> rs.getLong(1)));
		assertThat(ping).containsExactly(1L);
	}

	@Test
	void onPostgresAStatementUnderItsBoundRunsAndGivesItsSlotBack() {
		LockDatabase database = new LockDatabase(TestDatabase.POSTGRESQL.dataSource(), JdbcDialect.POSTGRESQL);
		Long value = database.run(null, "sleep briefly", 2_000, false,
				session -> session.returning("SELECT 7 FROM pg_sleep(0.05)"));
		assertThat(value).isEqualTo(7L);
		assertThat(StatementWatchdog.SHARED.taken()).isZero();
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

}
