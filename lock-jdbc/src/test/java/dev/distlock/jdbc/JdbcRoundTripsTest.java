package dev.distlock.jdbc;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.core.JdbcTemplate;

import com.zaxxer.hikari.HikariDataSource;

import dev.distlock.core.LockMode;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Acquisition;
import dev.distlock.core.spi.FirstAttempt;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.jdbc.testsupport.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How many statements the hot calls send, counted on the connections the provider borrows: an exclusive attempt is
 * one statement on PostgreSQL whether it inserts, grants or is refused (two the first time it finds a row there that
 * it did not know of), and on MariaDB when the key has no row (as a plain release deletes it); an exclusive release is one round trip on both databases, so an uncontended cycle is
 * two (on PostgreSQL the release and its NOTIFY are one statement; that the NOTIFY is
 * delivered, {@link PostgresListenerTest} shows); a refused waiting writer's mark hands back the lease left in the same
 * statement, and on PostgreSQL its later attempts carry the mark, rewritten only when half its time has run out.
 */
class JdbcRoundTripsTest {

	private static final OwnerDetails OWNER = new OwnerDetails("round-trips", "host");

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void anExclusiveReleaseIsOneStatement(TestDatabase db) {
		db.dataSource();
		try (HikariDataSource pool = db.pool(db.jdbcUrl(db.port()), 2)) {
			AtomicInteger statements = new AtomicInteger();
			JdbcLockProvider provider = new JdbcLockProvider(counting(pool, statements), db.dialect(),
					JdbcLockSettings.defaults());
			String key = "trips:" + System.nanoTime();
			LockRequest request = new LockRequest(key, dev.distlock.core.internal.OwnerTokens.next(),
					Duration.ofSeconds(30), LockMode.EXCLUSIVE, 1, OWNER);
			Lease lease = provider.tryAcquire(request).orElseThrow();

			statements.set(0);
			assertThat(lease.release()).isTrue();
			assertThat(statements).hasValue(1);

			assertThat(provider.isLocked(key)).isFalse();
			provider.close();
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void anUncontendedAcquireAndReleaseCycleIsTwoStatementsOnBothDatabases(TestDatabase db) {
		db.dataSource();
		try (HikariDataSource pool = db.pool(db.jdbcUrl(db.port()), 2)) {
			AtomicInteger statements = new AtomicInteger();
			JdbcLockProvider provider = new JdbcLockProvider(counting(pool, statements), db.dialect(),
					JdbcLockSettings.defaults());
			String key = "trips:cycle:" + System.nanoTime();
			long last = 0;
			for (int cycle = 0; cycle < 3; cycle++) {
				statements.set(0);
				Lease lease = provider.tryAcquire(request(key)).orElseThrow();
				assertThat(statements).as("the acquire of cycle " + cycle).hasValue(1);
				assertThat(lease.release()).isTrue();
				assertThat(statements).as("the acquire and the release of cycle " + cycle).hasValue(2);
				assertThat(lease.fencingToken()).isGreaterThan(last);
				last = lease.fencingToken();
			}
			provider.close();
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void anExclusiveAttemptIsOneStatementOnPostgresWhetherTheRowIsNewFreeOrHeld(TestDatabase db) {
		db.dataSource();
		try (HikariDataSource pool = db.pool(db.jdbcUrl(db.port()), 2)) {
			AtomicInteger statements = new AtomicInteger();
			JdbcLockProvider provider = new JdbcLockProvider(counting(pool, statements), db.dialect(),
					JdbcLockSettings.defaults());
			boolean postgres = db.dialect() == JdbcDialect.POSTGRESQL;
			String key = "trips:attempt:" + System.nanoTime();

			statements.set(0);
			Lease first = provider.tryAcquire(request(key)).orElseThrow();
			assertThat(statements).hasValue(1); // a new key: the insert

			statements.set(0);
			assertThat(provider.tryAcquire(request(key))).isEmpty();
			assertThat(statements).hasValue(postgres ? 1 : 2); // held: refused (MariaDB: the insert, the grant)

			// A release that keeps the key's row (a lock without expiry's): the row exists, free.
			assertThat(first.release()).isTrue();
			Lease kept = provider.tryAcquire(new LockRequest(key, dev.distlock.core.internal.OwnerTokens.next(),
					Duration.ofSeconds(30), LockMode.EXCLUSIVE, 1, OWNER, null, true)).orElseThrow();
			assertThat(kept.release()).isTrue();
			statements.set(0);
			Lease second = provider.tryAcquire(request(key)).orElseThrow();
			assertThat(statements).hasValue(postgres ? 1 : 2); // the key's row, free: granted (MariaDB: by the grant)

			assertThat(second.fencingToken()).isGreaterThan(kept.fencingToken());
			assertThat(kept.fencingToken()).isGreaterThan(first.fencingToken());
			assertThat(second.release()).isTrue();
			provider.close();
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aKeyAnotherProcessHoldsCostsTheFirstAttemptTheInsertThatFindsItsRowThenOnlyTheUpsertOnPostgres(
			TestDatabase db) {
		db.dataSource();
		try (HikariDataSource pool = db.pool(db.jdbcUrl(db.port()), 2)) {
			AtomicInteger statements = new AtomicInteger();
			JdbcLockProvider provider = new JdbcLockProvider(counting(pool, statements), db.dialect(),
					JdbcLockSettings.defaults());
			JdbcLockProvider other = new JdbcLockProvider(pool, db.dialect(), JdbcLockSettings.defaults());
			String key = "trips:other:" + System.nanoTime();
			Lease held = other.tryAcquire(request(key)).orElseThrow();

			statements.set(0);
			assertThat(provider.tryAcquire(request(key))).isEmpty();
			assertThat(statements).as("the insert, then the upsert (MariaDB: the insert, then the grant)").hasValue(2);
			statements.set(0);
			assertThat(provider.tryAcquire(request(key))).isEmpty();
			assertThat(statements).as("the key known: the upsert alone (MariaDB: as before)")
				.hasValue(db.dialect() == JdbcDialect.POSTGRESQL ? 1 : 2);

			// Released by its holder, the row is gone; the key is still known here, and the upsert grants it.
			assertThat(held.release()).isTrue();
			statements.set(0);
			Lease mine = provider.tryAcquire(request(key)).orElseThrow();
			assertThat(statements).hasValue(1);
			assertThat(mine.fencingToken()).isGreaterThan(held.fencingToken());
			// This provider's own deleting release forgets the key: the next attempt inserts.
			assertThat(mine.release()).isTrue();
			statements.set(0);
			Lease again = provider.tryAcquire(request(key)).orElseThrow();
			assertThat(statements).hasValue(1);
			assertThat(again.fencingToken()).isGreaterThan(mine.fencingToken());
			assertThat(again.release()).isTrue();
			assertThat(provider.isLocked(key)).isFalse();
			other.close();
			provider.close();
		}
	}

	@Test
	void aKeysInsertOnPostgresHasNoConflictClauseUntilItMeetsTheRowThereThenWritesNothingInsteadOfFailing() {
		TestDatabase db = TestDatabase.POSTGRESQL;
		try (HikariDataSource pool = db.pool(db.jdbcUrl(db.port()), 2)) {
			List<String> sent = new CopyOnWriteArrayList<>();
			JdbcLockProvider provider = new JdbcLockProvider(recording(pool, sent), db.dialect(),
					JdbcLockSettings.defaults());
			JdbcLockProvider other = new JdbcLockProvider(pool, db.dialect(), JdbcLockSettings.defaults());
			String key = "trips:strict:" + System.nanoTime();
			String plainInsert = "INSERT INTO " + JdbcLockSettings.DEFAULT_TABLE + " (";
			String upsert = "INSERT INTO " + JdbcLockSettings.DEFAULT_TABLE + " AS t (";

			Lease first = provider.tryAcquire(request(key)).orElseThrow();
			assertThat(sent).singleElement().asString().startsWith(plainInsert).doesNotContain("ON CONFLICT");
			assertThat(first.release()).isTrue(); // deletes the row: the key is new to this provider again

			Lease held = other.tryAcquire(request(key)).orElseThrow();
			sent.clear();
			// The row there fails the insert (a unique violation, rolled back by the server): refused, not an error.
			assertThat(provider.tryAcquire(request(key))).isEmpty();
			assertThat(sent).hasSize(2);
			assertThat(sent.get(0)).startsWith(plainInsert).doesNotContain("ON CONFLICT");
			assertThat(sent.get(1)).startsWith(upsert);

			assertThat(held.release()).isTrue();
			Lease known = provider.tryAcquire(request(key)).orElseThrow(); // the key known: the upsert grants it
			assertThat(known.release()).isTrue(); // deletes the row again

			sent.clear();
			Lease again = provider.tryAcquire(request(key)).orElseThrow();
			// The key met its row once: its inserts write nothing where the row is there, never failing again.
			assertThat(sent).singleElement().asString().startsWith(plainInsert)
				.contains("ON CONFLICT (lock_key) DO NOTHING");
			assertThat(again.release()).isTrue();

			assertThat(held.fencingToken()).isGreaterThan(first.fencingToken());
			assertThat(known.fencingToken()).isGreaterThan(held.fencingToken());
			assertThat(again.fencingToken()).isGreaterThan(known.fencingToken());
			assertThat(new JdbcTemplate(db.dataSource()).queryForObject("SELECT count(*) FROM "
					+ JdbcLockSettings.DEFAULT_TABLE + " WHERE lock_key = ?", Integer.class, key)).isZero();
			other.close();
			provider.close();
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aRefusedWaitingExclusiveAttemptIsTwoStatementsOnPostgresAndThreeOnMariaDb(TestDatabase db) {
		db.dataSource();
		try (HikariDataSource pool = db.pool(db.jdbcUrl(db.port()), 4)) {
			AtomicInteger statements = new AtomicInteger();
			JdbcLockProvider provider = new JdbcLockProvider(counting(pool, statements), db.dialect(),
					JdbcLockSettings.defaults());
			String key = "trips:waiting:" + System.nanoTime();
			Lease holder = provider.tryAcquire(request(key)).orElseThrow();

			try (Acquisition waiting = provider.begin(request(key))) {
				statements.set(0);
				assertThat(waiting.tryOnce()).isEmpty();
				// The attempt (MariaDB: the INSERT IGNORE, then the UPDATE), then the mark handing back the lease left.
				assertThat(statements).hasValue(db.dialect() == JdbcDialect.POSTGRESQL ? 2 : 3);
			}
			assertThat(holder.release()).isTrue();
			provider.close();
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aWaitingAcquireWhoseFirstAttemptWinsIsThatOneStatementAndMakesNoWaiter(TestDatabase db) {
		db.dataSource();
		try (HikariDataSource pool = db.pool(db.jdbcUrl(db.port()), 2)) {
			AtomicInteger statements = new AtomicInteger();
			JdbcLockProvider provider = new JdbcLockProvider(counting(pool, statements), db.dialect(),
					JdbcLockSettings.defaults());
			String key = "trips:start:" + System.nanoTime();
			Lease first = provider.tryAcquire(request(key)).orElseThrow(); // the key's row exists from here on
			assertThat(first.release()).isTrue();

			statements.set(0);
			FirstAttempt started = provider.start(request(key));
			assertThat(started).isInstanceOf(Acquisition.Granted.class);
			assertThat(statements).hasValue(1);
			assertThat(provider.wakeups().waiting(key)).as("no waiter registered").isZero();
			assertThat(provider.wakeups().listening()).as("no LISTEN connection joined").isFalse();
			assertThat(((Acquisition.Granted) started).lease().release()).isTrue();
			provider.close();
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aRefusedFirstWaitingAttemptRegistersTheWaiterThenMarksWithTheLeaseLeft(TestDatabase db) throws Exception {
		db.dataSource();
		try (HikariDataSource pool = db.pool(db.jdbcUrl(db.port()), 4)) {
			AtomicInteger statements = new AtomicInteger();
			JdbcLockProvider provider = new JdbcLockProvider(counting(pool, statements), db.dialect(),
					JdbcLockSettings.defaults());
			String key = "trips:start-refused:" + System.nanoTime();
			Lease holder = provider.tryAcquire(request(key)).orElseThrow();

			statements.set(0);
			try (Acquisition waiting = (Acquisition) provider.start(request(key))) {
				// The attempt (MariaDB: the INSERT IGNORE, then the UPDATE), then the mark handing back the lease left.
				assertThat(statements).hasValue(db.dialect() == JdbcDialect.POSTGRESQL ? 2 : 3);
				assertThat(provider.wakeups().waiting(key)).isEqualTo(1);
				assertThat(holder.release()).isTrue();
				assertThat(waiting.awaitSignal(Duration.ofMinutes(1))).as("woken by the release").isTrue();
				Acquisition.Granted granted = waiting.tryOnce().orElseThrow();
				assertThat(granted.lease().release()).isTrue();
			}
			assertThat(provider.wakeups().waiting(key)).isZero();
			provider.close();
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aReleaseBetweenTheRefusedFirstAttemptAndTheWaitersMarkLeavesNoLeaseToWaitFor(TestDatabase db)
			throws Exception {
		db.dataSource();
		try (HikariDataSource pool = db.pool(db.jdbcUrl(db.port()), 4)) {
			JdbcLockProvider holding = new JdbcLockProvider(pool, db.dialect(), JdbcLockSettings.defaults());
			String key = "trips:start-race:" + System.nanoTime();
			Lease holder = holding.tryAcquire(request(key)).orElseThrow();
			// The waiter's provider borrows a connection for the attempt (MariaDB's two statements share it), then
			// one for the mark: the release lands just before the mark's borrow, before the waiter is registered
			// anywhere the release could wake it.
			int markBorrow = 2;
			AtomicInteger borrows = new AtomicInteger();
			DataSource releasingBeforeMark = (DataSource) Proxy.newProxyInstance(
					JdbcRoundTripsTest.class.getClassLoader(), new Class<?>[] { DataSource.class },
					(proxy, method, args) -> {
						if (method.getName().equals("getConnection") && borrows.incrementAndGet() == markBorrow) {
							assertThat(holder.release()).isTrue();
						}
						return invoke(pool, method, args);
					});
			JdbcLockProvider provider = new JdbcLockProvider(releasingBeforeMark, db.dialect(),
					JdbcLockSettings.defaults());

			try (Acquisition waiting = (Acquisition) provider.start(request(key))) {
				// Without the mark's read the wait would last the whole 20 s: the holder's lease had 30 s left. (On
				// PostgreSQL the LISTEN connection's opening wakes it too, once.)
				long start = System.nanoTime();
				waiting.awaitSignal(Duration.ofSeconds(20));
				assertThat(Duration.ofNanos(System.nanoTime() - start)).as("no lease left to wait for")
					.isLessThan(Duration.ofSeconds(10));
				Acquisition.Granted granted = waiting.tryOnce().orElseThrow();
				assertThat(granted.lease().release()).isTrue();
			}
			provider.close();
			holding.close();
		}
	}

	@Test
	void aMarkedWaitingWritersLaterRefusalsAreOneStatementOnPostgresAndLeaveALiveMarkInPlace() throws Exception {
		TestDatabase db = TestDatabase.POSTGRESQL;
		try (HikariDataSource pool = db.pool(db.jdbcUrl(db.port()), 4)) {
			AtomicInteger statements = new AtomicInteger();
			JdbcLockProvider provider = new JdbcLockProvider(counting(pool, statements), db.dialect(),
					JdbcLockSettings.defaults());
			JdbcTemplate jdbc = new JdbcTemplate(db.dataSource());
			String key = "trips:marked:" + System.nanoTime();
			String mark = "SELECT waiter || ' ' || waiter_until FROM " + JdbcLockSettings.DEFAULT_TABLE
					+ " WHERE lock_key = ?";
			Lease holder = provider.tryAcquire(request(key)).orElseThrow();
			LockRequest writer = request(key);

			try (Acquisition waiting = provider.begin(writer)) {
				assertThat(waiting.tryOnce()).isEmpty(); // the plain attempt, then the mark
				waiting.awaitSignal(Duration.ofSeconds(10)); // a long wait: the next mark lives 30 s
				statements.set(0);
				assertThat(waiting.tryOnce()).isEmpty(); // the attempt and the longer mark, one statement
				assertThat(statements).hasValue(1);
				String written = jdbc.queryForObject(mark, String.class, key);
				// The writer's token behind its LISTEN connection's tag, which a release naming it notifies alone.
				assertThat(written).startsWith(PostgresListener.mark(provider.wakeups().tag(), writer.token()) + " ");

				statements.set(0);
				assertThat(waiting.tryOnce()).isEmpty(); // the mark has most of its time left: kept in place
				assertThat(statements).hasValue(1);
				assertThat(jdbc.queryForObject(mark, String.class, key)).isEqualTo(written);
				assertThat(provider.tryAcquire(new LockRequest(key, dev.distlock.core.internal.OwnerTokens.next(),
						Duration.ofSeconds(30), LockMode.SHARED, 4, OWNER))).as("a reader, while the writer waits")
					.isEmpty();
			}
			assertThat(holder.release()).isTrue();
			provider.close();
		}
	}

	private static LockRequest request(String key) {
		return new LockRequest(key, dev.distlock.core.internal.OwnerTokens.next(), Duration.ofSeconds(30),
				LockMode.EXCLUSIVE, 1, OWNER);
	}

	@Test
	void onMariaDbTheUncontendedCycleIsPreparedOnceOnTheServerAndThenOnlyExecutedThere() throws Exception {
		TestDatabase db = TestDatabase.MARIADB;
		db.dataSource();
		// One connection: the session counters read at the end are those of the connection the cycles ran on.
		try (HikariDataSource pool = db.pool(db.jdbcUrl(db.port()), 1)) {
			JdbcLockProvider provider = new JdbcLockProvider(pool, db.dialect(), JdbcLockSettings.defaults());
			String key = "trips:prepared:" + System.nanoTime();
			long[] counted = cyclesCounted(pool, provider, key, 20);
			// Two statements (the insert, the deleting release), each prepared once and executed twenty times.
			assertThat(counted[0]).as("server-side prepares").isEqualTo(2);
			assertThat(counted[1]).as("executions of prepared statements").isEqualTo(40);
			assertThat(provider.isLocked(key)).isFalse();
			provider.close();
		}
	}

	@Test
	void onMariaDbWithServerPreparesOffTheCycleIsSentAsTextThroughThePoolsConnection() throws Exception {
		TestDatabase db = TestDatabase.MARIADB;
		db.dataSource();
		try (HikariDataSource pool = db.pool(db.jdbcUrl(db.port()), 1)) {
			AtomicInteger statements = new AtomicInteger();
			JdbcLockProvider provider = new JdbcLockProvider(counting(pool, statements), db.dialect(),
					JdbcLockSettings.defaults().withServerPrepares(false));
			String key = "trips:text:" + System.nanoTime();
			long[] counted = cyclesCounted(pool, provider, key, 5);
			assertThat(counted[0]).as("server-side prepares").isZero();
			assertThat(counted[1]).as("executions of prepared statements").isZero();
			assertThat(statements).as("statements the pool's connection saw").hasValue(10);
			provider.close();
		}
	}

	@Test
	void onMariaDbWhereConnectorJResetsTheSessionOnReturnNothingIsKeptAndCallsAfterAResetSucceed() throws Exception {
		TestDatabase db = TestDatabase.MARIADB;
		db.dataSource();
		// With this option Connector/J's reset() (which its own pool calls on every return) sends COM_RESET_CONNECTION,
		// which drops the session's prepared statements: keeping them would prepare them again on every borrow.
		try (HikariDataSource pool = db.pool(db.jdbcUrl(db.port()) + "&useResetConnection=true", 1)) {
			JdbcLockProvider provider = new JdbcLockProvider(pool, db.dialect(), JdbcLockSettings.defaults());
			String key = "trips:reset:" + System.nanoTime();
			long[] before = statementCounters(pool);
			Lease first = provider.tryAcquire(request(key)).orElseThrow();
			assertThat(first.release()).isTrue();
			try (Connection connection = pool.getConnection()) {
				connection.unwrap(org.mariadb.jdbc.Connection.class).reset();
			}
			Lease second = provider.tryAcquire(request(key)).orElseThrow();
			assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
			assertThat(second.release()).isTrue();
			long[] after = statementCounters(pool);
			assertThat(after[0] - before[0]).as("server-side prepares").isZero();
			assertThat(after[1] - before[1]).as("executions of prepared statements").isZero();
			assertThat(provider.isLocked(key)).isFalse();
			provider.close();
		}
	}

	@Test
	void onMariaDbAServerThatRefusesMorePreparedStatementsStillGrantsAndReleases() throws Exception {
		TestDatabase db = TestDatabase.MARIADB;
		JdbcTemplate admin = new JdbcTemplate(db.dataSource());
		long limit = admin.queryForObject("SELECT @@GLOBAL.max_prepared_stmt_count", Long.class);
		admin.execute("SET GLOBAL max_prepared_stmt_count = 0");
		try (HikariDataSource pool = db.pool(db.jdbcUrl(db.port()), 1)) {
			JdbcLockProvider provider = new JdbcLockProvider(pool, db.dialect(), JdbcLockSettings.defaults());
			String key = "trips:limit:" + System.nanoTime();
			long last = 0;
			for (int cycle = 0; cycle < 5; cycle++) {
				Lease lease = provider.tryAcquire(request(key)).orElseThrow();
				assertThat(lease.fencingToken()).isGreaterThan(last);
				last = lease.fencingToken();
				assertThat(provider.tryAcquire(request(key))).as("held").isEmpty();
				assertThat(lease.release()).isTrue();
			}
			assertThat(provider.isLocked(key)).isFalse();
			provider.close();
		}
		finally {
			admin.execute("SET GLOBAL max_prepared_stmt_count = " + limit);
		}
	}

	@Test
	void onMariaDbAConnectionThatBrokeUnderAStatementPreparedOnTheServerLeavesThePoolWithTheFailedCall() throws Exception {
		TestDatabase db = TestDatabase.MARIADB;
		JdbcTemplate admin = new JdbcTemplate(db.dataSource());
		try (HikariDataSource pool = db.pool(db.jdbcUrl(db.port()), 1)) {
			JdbcLockProvider provider = new JdbcLockProvider(pool, db.dialect(), JdbcLockSettings.defaults());
			String key = "trips:broken:" + System.nanoTime();
			Lease lease = provider.tryAcquire(request(key)).orElseThrow();
			long session = new JdbcTemplate(pool).queryForObject("SELECT CONNECTION_ID()", Long.class);
			admin.execute("KILL " + session);
			long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
			while (admin.queryForObject("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ?", Long.class,
					session) > 0) {
				assertThat(System.nanoTime() - deadline).as("the killed session is gone").isNegative();
				Thread.sleep(1);
			}
			// The extend is one statement prepared on the server, sent past the pool's proxies, and is tried twice: the
			// second attempt must not meet the dead connection again (HikariCP evicts it when the first returns it:
			// its close clears the warnings, which Connector/J refuses on a closed connection).
			assertThat(lease.extend(Duration.ofSeconds(30))).isTrue();
			assertThat(lease.release()).isTrue();
			assertThat(provider.isLocked(key)).isFalse();
			provider.close();
		}
	}

	@Test
	void onMariaDbACallThatFindsTheWatchdogFullRunsAsTextUnderTheDriversQueryTimeout() throws Exception {
		TestDatabase db = TestDatabase.MARIADB;
		db.dataSource();
		try (HikariDataSource pool = db.pool(db.jdbcUrl(db.port()), 1);
				Connection other = java.sql.DriverManager.getConnection(db.jdbcUrl(db.port()), "root", "")) {
			JdbcLockProvider provider = new JdbcLockProvider(pool, db.dialect(), JdbcLockSettings.defaults());
			String key = "trips:full:" + System.nanoTime();
			assertThat(provider.tryAcquire(request(key)).orElseThrow().release()).isTrue(); // prepared and kept
			java.util.List<Integer> slots = new java.util.ArrayList<>();
			java.util.List<java.sql.Statement> fillers = new java.util.ArrayList<>();
			try {
				while (true) {
					java.sql.Statement filler = other.createStatement();
					int slot = StatementWatchdog.SHARED.watch(filler, 600_000);
					if (slot < 0) {
						filler.close();
						break;
					}
					slots.add(slot);
					fillers.add(filler);
				}
				long[] before = statementCounters(pool);
				Lease lease = provider.tryAcquire(request(key)).orElseThrow();
				assertThat(lease.release()).isTrue();
				long[] after = statementCounters(pool);
				assertThat(after[1] - before[1]).as("executions of statements prepared on the server").isZero();
			}
			finally {
				slots.forEach(StatementWatchdog.SHARED::release);
				for (java.sql.Statement filler : fillers) {
					filler.close();
				}
			}
			long[] before = statementCounters(pool);
			assertThat(provider.tryAcquire(request(key)).orElseThrow().release()).isTrue();
			assertThat(statementCounters(pool)[1] - before[1]).as("the kept statements again").isEqualTo(2);
			provider.close();
		}
	}

	@Test
	void onMariaDbAConnectionSharedByThreadsNeverRunsAStatementWithAnotherThreadsValues() throws Exception {
		TestDatabase db = TestDatabase.MARIADB;
		db.dataSource();
		// One connection for every thread at once, as Spring's SingleConnectionDataSource hands out.
		try (Connection shared = java.sql.DriverManager.getConnection(db.jdbcUrl(db.port()), "root", "")) {
			org.springframework.jdbc.datasource.SingleConnectionDataSource dataSource =
					new org.springframework.jdbc.datasource.SingleConnectionDataSource(shared, true);
			JdbcLockProvider provider = new JdbcLockProvider(dataSource, db.dialect(), JdbcLockSettings.defaults());
			int threads = 4;
			int cycles = 200;
			AtomicInteger released = new AtomicInteger();
			java.util.List<Thread> workers = new java.util.ArrayList<>();
			String prefix = "trips:shared:" + System.nanoTime() + ":";
			for (int t = 0; t < threads; t++) {
				String key = prefix + t;
				Thread worker = new Thread(() -> {
					for (int cycle = 0; cycle < cycles; cycle++) {
						Lease lease = provider.tryAcquire(request(key)).orElseThrow();
						if (lease.release()) {
							released.incrementAndGet();
						}
					}
				});
				workers.add(worker);
				worker.start();
			}
			for (Thread worker : workers) {
				worker.join();
			}
			// A statement run with another thread's key or token would have refused a grant or failed a release.
			assertThat(released).hasValue(threads * cycles);
			assertThat(new JdbcTemplate(dataSource).queryForObject(
					"SELECT COUNT(*) FROM distributed_locks WHERE lock_key LIKE ?", Long.class, prefix + "%")).isZero();
			provider.close();
		}
	}

	/**
	 * Runs uncontended acquire-and-release cycles on the key, each released, and returns how many server-side prepares
	 * and executions of prepared statements the pool's one connection made over them.
	 */
	private static long[] cyclesCounted(DataSource pool, JdbcLockProvider provider, String key, int cycles)
			throws Exception {
		long[] before = statementCounters(pool);
		for (int cycle = 0; cycle < cycles; cycle++) {
			assertThat(provider.tryAcquire(request(key)).orElseThrow().release()).isTrue();
		}
		long[] after = statementCounters(pool);
		return new long[] { after[0] - before[0], after[1] - before[1] };
	}

	/** The session's server-side prepares and executions of prepared statements ({@code Com_stmt_*}). */
	private static long[] statementCounters(DataSource pool) throws Exception {
		try (Connection connection = pool.getConnection(); java.sql.Statement statement = connection.createStatement();
				java.sql.ResultSet rs = statement.executeQuery("SHOW SESSION STATUS WHERE Variable_name IN "
						+ "('Com_stmt_prepare', 'Com_stmt_execute')")) {
			long[] counters = new long[2];
			while (rs.next()) {
				counters[rs.getString(1).equalsIgnoreCase("Com_stmt_prepare") ? 0 : 1] = rs.getLong(2);
			}
			return counters;
		}
	}

	/**
	 * The DataSource, counting every statement prepared or created on its connections, and every unwrap to the
	 * driver's connection (how the provider prepares a statement on the server on MariaDB, see {@link LockDatabase}).
	 */
	private static DataSource counting(HikariDataSource pool, AtomicInteger statements) {
		return watching(pool, sql -> statements.incrementAndGet());
	}

	/** The pool, recording the text of each statement the calling thread prepares. */
	private static DataSource recording(HikariDataSource pool, List<String> sent) {
		return watching(pool, sql -> {
			if (sql != null) {
				sent.add(sql);
			}
		});
	}

	/**
	 * The pool, telling each statement the calling thread prepares (its text) or creates (null). Only the caller's own:
	 * PostgreSQL's LISTEN connection runs on a thread of its own.
	 */
	private static DataSource watching(HikariDataSource pool, Consumer<@Nullable String> statement) {
		Thread caller = Thread.currentThread();
		InvocationHandler dataSource = (proxy, method, args) -> {
			Object result = invoke(pool, method, args);
			if (result instanceof Connection connection) {
				return Proxy.newProxyInstance(JdbcRoundTripsTest.class.getClassLoader(),
						new Class<?>[] { Connection.class }, (p, m, a) -> {
							if (Thread.currentThread() == caller) {
								if (m.getName().equals("prepareStatement")) {
									statement.accept((String) a[0]);
								}
								else if (m.getName().equals("createStatement") || m.getName().equals("unwrap")) {
									statement.accept(null);
								}
							}
							return invoke(connection, m, a);
						});
			}
			return result;
		};
		return (DataSource) Proxy.newProxyInstance(JdbcRoundTripsTest.class.getClassLoader(),
				new Class<?>[] { DataSource.class }, dataSource);
	}

	private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

}
