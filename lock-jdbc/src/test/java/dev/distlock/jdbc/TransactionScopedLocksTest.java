package dev.distlock.jdbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.support.TransactionTemplate;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;

import dev.distlock.core.InvalidLockKeyException;
import dev.distlock.core.InvalidLockOptionException;
import dev.distlock.core.LockStoreException;
import dev.distlock.jdbc.testsupport.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Transaction-scoped locks on a real PostgreSQL: held exactly as long as the Spring transaction that took them
 * (commit or rollback ends them), never by two transactions at once, and refused with a typed error outside a
 * transaction or on MariaDB.
 */
class TransactionScopedLocksTest {

	/** Generous waits for a loaded machine; none is a speed bound. */
	private static final Duration PATIENCE = Duration.ofMinutes(2);

	private static HikariDataSource pool;

	private static TransactionTemplate tx;

	private static TransactionScopedLocks locks;

	private static JdbcTemplate jdbc;

	@BeforeAll
	static void pool() {
		TestDatabase db = TestDatabase.POSTGRESQL;
		pool = db.pool(db.jdbcUrl(db.port()), 12);
		tx = new TransactionTemplate(new DataSourceTransactionManager(pool));
		locks = new TransactionScopedLocks(pool);
		jdbc = new JdbcTemplate(pool);
	}

	@AfterAll
	static void close() {
		pool.close();
	}

	private static String key() {
		return "xact:" + System.nanoTime();
	}

	@Test
	void transactionsOnOneKeyNeverOverlapAndEachGetsItInTurn() throws Exception {
		String key = key();
		int threads = 8;
		int rounds = 5;
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		int[] counter = { 0 };
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> futures = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				futures.add(executor.submit(() -> {
					for (int i = 0; i < rounds; i++) {
						tx.executeWithoutResult(status -> {
							assertThat(locks.lock(key, PATIENCE)).isTrue();
							if (inside.incrementAndGet() > 1) {
								overlaps.incrementAndGet();
							}
							int read = counter[0];
							jdbc.queryForObject("SELECT 1 FROM pg_sleep(0.002)", Integer.class);
							counter[0] = read + 1;
							inside.decrementAndGet();
						});
					}
				}));
			}
			for (Future<?> future : futures) {
				future.get(5, TimeUnit.MINUTES);
			}
		}
		finally {
			executor.shutdownNow();
		}
		assertThat(overlaps).hasValue(0);
		assertThat(counter[0]).isEqualTo(threads * rounds);
	}

	@Test
	void theLockIsHeldUntilTheTransactionCommitsAndAWaiterGetsItThen() throws Exception {
		String key = key();
		CountDownLatch held = new CountDownLatch(1);
		CountDownLatch commit = new CountDownLatch(1);
		Thread holder = new Thread(() -> tx.executeWithoutResult(status -> {
			assertThat(locks.tryLock(key)).isTrue();
			held.countDown();
			await(commit);
		}));
		holder.start();
		await(held);

		tx.executeWithoutResult(status -> {
			assertThat(locks.tryLock(key)).as("held by the other transaction").isFalse();
			assertThat(locks.lock(key, Duration.ofMillis(200))).as("a wait that runs out").isFalse();
			// The transaction goes on after the timed-out wait, its own lock_timeout unchanged.
			assertThat(jdbc.queryForObject("SHOW lock_timeout", String.class)).isEqualTo("0");
			commit.countDown();
			assertThat(locks.lock(key, PATIENCE)).as("granted when the holder commits").isTrue();
			assertThat(locks.tryLock(key)).as("a transaction holding it takes it again").isTrue();
			assertThat(jdbc.queryForObject("SHOW lock_timeout", String.class)).isEqualTo("0");
		});
		holder.join(PATIENCE.toMillis());
	}

	@Test
	void aWaitLongerThanLockTimeoutTakesIsWaitedAndGrantedWhenTheHolderCommits() throws Exception {
		// PostgreSQL's lock_timeout stops at Integer.MAX_VALUE ms (24.8 days); 365 days is waited in turns of it.
		String key = key();
		CountDownLatch commit = new CountDownLatch(1);
		Thread holder = holdUntil(key, commit);
		Thread releaser = openOnceWaitedFor(commit, 0);
		tx.executeWithoutResult(status -> {
			assertThat(locks.lock(key, Duration.ofDays(365))).isTrue();
			assertThat(jdbc.queryForObject("SHOW lock_timeout", String.class)).isEqualTo("0");
		});
		holder.join(PATIENCE.toMillis());
		releaser.join(PATIENCE.toMillis());
	}

	@Test
	void aStatementTimeoutShorterThanTheWaitDoesNotCutItShortAndIsKept() throws Exception {
		String key = key();
		CountDownLatch commit = new CountDownLatch(1);
		Thread holder = holdUntil(key, commit);
		// Longer than the waiter's statement_timeout, however fast or slow the machine.
		Thread releaser = openOnceWaitedFor(commit, 600);
		tx.executeWithoutResult(status -> {
			jdbc.execute("SET LOCAL statement_timeout = '200ms'");
			assertThat(locks.lock(key, PATIENCE)).isTrue();
			assertThat(jdbc.queryForObject("SHOW statement_timeout", String.class)).isEqualTo("200ms");
		});
		holder.join(PATIENCE.toMillis());
		releaser.join(PATIENCE.toMillis());
	}

	@Test
	void anInterruptedThreadSendsNothingAndKeepsItsFlag() {
		String key = key();
		tx.executeWithoutResult(status -> {
			Thread.currentThread().interrupt();
			try {
				assertThatThrownBy(() -> locks.lock(key, PATIENCE))
					.isInstanceOf(dev.distlock.core.LockAcquisitionException.class)
					.hasMessageContaining("interrupted");
				assertThat(Thread.currentThread().isInterrupted()).isTrue();
			}
			finally {
				Thread.interrupted();
			}
			Integer mine = jdbc.queryForObject("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND "
					+ "pid = pg_backend_pid() AND ((classid::bigint << 32) | objid::bigint) = ?", Integer.class,
					TransactionScopedLocks.advisoryKey(key));
			assertThat(mine).isZero();
		});
	}

	/** A transaction holding the key's lock until {@code commit} opens; returns once it holds it. */
	private static Thread holdUntil(String key, CountDownLatch commit) {
		CountDownLatch held = new CountDownLatch(1);
		Thread holder = new Thread(() -> tx.executeWithoutResult(status -> {
			assertThat(locks.tryLock(key)).isTrue();
			held.countDown();
			await(commit);
		}));
		holder.start();
		await(held);
		return holder;
	}

	/** A thread that opens {@code commit} once a backend has waited for an advisory lock at least {@code millis}. */
	private static Thread openOnceWaitedFor(CountDownLatch commit, long millis) {
		Thread releaser = new Thread(() -> {
			awaitWaiter();
			try {
				Thread.sleep(millis);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			commit.countDown();
		});
		releaser.start();
		return releaser;
	}

	/** Until a backend waits for an advisory lock, however long the machine takes. */
	private static void awaitWaiter() {
		while (jdbc.queryForObject("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
				Integer.class) == 0) {
			try {
				Thread.sleep(10);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	@Test
	void aRollbackReleasesTheLock() {
		String key = key();
		tx.executeWithoutResult(status -> {
			assertThat(locks.tryLock(key)).isTrue();
			status.setRollbackOnly();
		});
		Boolean again = tx.execute(status -> locks.tryLock(key));
		assertThat(again).isTrue();
	}

	@Test
	void theLockIsTheTransactionsOwnAndNoOtherConnectionHoldsIt() {
		String key = key();
		tx.executeWithoutResult(status -> {
			assertThat(locks.tryLock(key)).isTrue();
			Long advisory = TransactionScopedLocks.advisoryKey(key);
			Integer mine = jdbc.queryForObject("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND "
					+ "pid = pg_backend_pid() AND ((classid::bigint << 32) | objid::bigint) = ? AND granted",
					Integer.class, advisory);
			assertThat(mine).isEqualTo(1);
		});
		Integer left = jdbc.queryForObject("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND "
				+ "((classid::bigint << 32) | objid::bigint) = ?", Integer.class, TransactionScopedLocks.advisoryKey(key));
		assertThat(left).isZero();
	}

	@Test
	void withoutATransactionItRefusesWithATypedError() {
		assertThatThrownBy(() -> locks.tryLock(key())).isInstanceOf(IllegalTransactionStateException.class)
			.hasMessageContaining("needs an active transaction");
		assertThatThrownBy(() -> locks.lock(key(), Duration.ofSeconds(1)))
			.isInstanceOf(IllegalTransactionStateException.class);
	}

	@Test
	void aTransactionOnAnotherDataSourceIsRefused() {
		TestDatabase db = TestDatabase.POSTGRESQL;
		try (HikariDataSource other = db.pool(db.jdbcUrl(db.port()), 2)) {
			TransactionScopedLocks onOther = new TransactionScopedLocks(other);
			tx.executeWithoutResult(status -> assertThatThrownBy(() -> onOther.tryLock(key()))
				.isInstanceOf(IllegalTransactionStateException.class)
				.hasMessageContaining("runs on another"));
		}
	}

	@Test
	void aTransactionOnAnotherDataSourceWhoseConnectionsStartOutsideAutocommitIsRefusedAndNothingIsLocked() {
		TestDatabase db = TestDatabase.POSTGRESQL;
		try (HikariDataSource pool = db.pool(db.jdbcUrl(db.port()), 2, null)) {
			// A DataSource handing out connections already outside autocommit: one is no proof of a transaction.
			DataSource other = new org.springframework.jdbc.datasource.DelegatingDataSource(pool) {
				@Override
				public java.sql.Connection getConnection() throws java.sql.SQLException {
					java.sql.Connection connection = super.getConnection();
					connection.setAutoCommit(false);
					return connection;
				}
			};
			TransactionScopedLocks onOther = new TransactionScopedLocks(other);
			String key = key();
			tx.executeWithoutResult(status -> assertThatThrownBy(() -> onOther.lock(key, Duration.ofSeconds(1)))
				.isInstanceOf(IllegalTransactionStateException.class)
				.hasMessageContaining("runs on another"));
			Integer left = jdbc.queryForObject("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND "
					+ "((classid::bigint << 32) | objid::bigint) = ?", Integer.class, TransactionScopedLocks.advisoryKey(key));
			assertThat(left).isZero();
		}
	}

	@Test
	void aTransactionAwareProxyOfTheTransactionsDataSourceLocksOnTheTransactionsConnection() {
		TransactionScopedLocks onProxy = new TransactionScopedLocks(
				new org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy(pool));
		String key = key();
		tx.executeWithoutResult(status -> {
			assertThat(onProxy.tryLock(key)).isTrue();
			Integer mine = jdbc.queryForObject("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND "
					+ "pid = pg_backend_pid() AND ((classid::bigint << 32) | objid::bigint) = ? AND granted",
					Integer.class, TransactionScopedLocks.advisoryKey(key));
			assertThat(mine).isEqualTo(1);
		});
	}

	@Test
	void onMariaDbItRefusesWithATypedError() {
		TestDatabase db = TestDatabase.MARIADB;
		try (HikariDataSource maria = db.pool(db.jdbcUrl(db.port()), 2)) {
			TransactionScopedLocks onMaria = new TransactionScopedLocks(maria);
			new TransactionTemplate(new DataSourceTransactionManager(maria))
				.executeWithoutResult(status -> assertThatThrownBy(() -> onMaria.tryLock(key()))
					.isInstanceOf(LockStoreException.class)
					.hasMessageContaining("need PostgreSQL"));
		}
	}

	@Test
	void aKeyThatIsNoLockKeyIsRefusedWithATypedErrorNamingItAndNothingIsLocked() {
		tx.executeWithoutResult(status -> {
			for (String bad : new String[] { null, "", " ", "bad\u0000key", "half\ud800", "x".repeat(600) }) {
				assertThatThrownBy(() -> locks.tryLock(bad)).as(String.valueOf(bad)).isInstanceOf(InvalidLockKeyException.class);
				assertThatThrownBy(() -> locks.lock(bad, Duration.ofSeconds(1))).as(String.valueOf(bad))
					.isInstanceOf(InvalidLockKeyException.class);
			}
			assertThatThrownBy(() -> locks.lock(key(), null)).isInstanceOf(InvalidLockOptionException.class)
				.hasMessageContaining("wait");
			Integer held = jdbc.queryForObject("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'",
					Integer.class);
			assertThat(held).isZero();
		});
	}

	@Test
	void keysHashToAStableBigint() {
		assertThat(TransactionScopedLocks.advisoryKey("orders:42"))
			.isEqualTo(TransactionScopedLocks.advisoryKey("orders:42"))
			.isNotEqualTo(TransactionScopedLocks.advisoryKey("orders:43"));
	}

	private static void await(CountDownLatch latch) {
		try {
			assertThat(latch.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
