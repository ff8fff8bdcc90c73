package dev.distlock.jdbc;

import java.time.Duration;
import java.util.Optional;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import com.zaxxer.hikari.HikariDataSource;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.jdbc.testsupport.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lock statements never join the caller's transaction: a Spring transaction on the same DataSource that takes or
 * releases a lock and then rolls back leaves the lock as the statement left it, and the transaction's own connection
 * is not the one the lock used.
 */
class JdbcTransactionsTest {

	private static final LockOptions LEASE = LockOptions.builder().timeout(Duration.ofSeconds(30)).build();

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aRolledBackTransactionDoesNotUndoTheLockItTook(TestDatabase db) {
		try (HikariDataSource pool = db.pool(db.jdbcUrl(db.port()), 4)) {
			db.dataSource(); // the table
			JdbcLockProvider provider = new JdbcLockProvider(pool, db.dialect(), JdbcLockSettings.defaults());
			LockTemplate template = LockTemplate.builder(provider).keyPrefix("tx:" + System.nanoTime() + ":").build();
			TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(pool));
			JdbcTemplate jdbc = new JdbcTemplate(pool);

			LockHandle handle = tx.execute(status -> {
				jdbc.queryForObject("SELECT 1", Integer.class); // the transaction now has a connection
				LockHandle taken = template.acquire("k", LEASE);
				status.setRollbackOnly();
				return taken;
			});

			assertThat(template.isLocked("k")).isTrue();
			assertThat(template.tryAcquire("k", LEASE)).isEmpty();
			assertThat(handle.isHeld()).isTrue();
			handle.release();
			template.close();
			provider.close();
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aReleaseInsideARolledBackTransactionStillReleases(TestDatabase db) {
		try (HikariDataSource pool = db.pool(db.jdbcUrl(db.port()), 4)) {
			db.dataSource();
			JdbcLockProvider provider = new JdbcLockProvider(pool, db.dialect(), JdbcLockSettings.defaults());
			LockTemplate template = LockTemplate.builder(provider).keyPrefix("tx:" + System.nanoTime() + ":").build();
			TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(pool));
			JdbcTemplate jdbc = new JdbcTemplate(pool);
			LockHandle handle = template.acquire("k", LEASE);

			tx.executeWithoutResult(status -> {
				jdbc.queryForObject("SELECT 1", Integer.class);
				handle.release();
				status.setRollbackOnly();
			});

			assertThat(template.isLocked("k")).isFalse();
			Optional<LockHandle> again = template.tryAcquire("k", LEASE);
			assertThat(again).isPresent();
			again.get().release();
			template.close();
			provider.close();
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aLockTakenInsideATransactionIsSeenByOthersBeforeTheTransactionEnds(TestDatabase db) {
		try (HikariDataSource pool = db.pool(db.jdbcUrl(db.port()), 4)) {
			db.dataSource();
			JdbcLockProvider provider = new JdbcLockProvider(pool, db.dialect(), JdbcLockSettings.defaults());
			JdbcLockProvider other = db.provider(JdbcLockSettings.defaults());
			String prefix = "tx:" + System.nanoTime() + ":";
			LockTemplate template = LockTemplate.builder(provider).keyPrefix(prefix).build();
			LockTemplate otherTemplate = LockTemplate.builder(other).keyPrefix(prefix).build();
			TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(pool));
			JdbcTemplate jdbc = new JdbcTemplate(pool);

			tx.executeWithoutResult(status -> {
				jdbc.queryForObject("SELECT 1", Integer.class);
				LockHandle taken = template.acquire("k", LEASE);
				// Committed at once on its own connection: another process sees it while this transaction is open.
				assertThat(otherTemplate.isLocked("k")).isTrue();
				assertThat(otherTemplate.tryAcquire("k", LEASE)).isEmpty();
				taken.release();
				assertThat(otherTemplate.isLocked("k")).isFalse();
			});
			template.close();
			otherTemplate.close();
			provider.close();
			other.close();
		}
	}

}
