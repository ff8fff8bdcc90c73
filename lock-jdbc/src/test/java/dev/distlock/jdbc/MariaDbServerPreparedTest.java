package dev.distlock.jdbc;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

import com.zaxxer.hikari.HikariDataSource;

import dev.distlock.core.LockMode;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.internal.OwnerTokens;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.jdbc.testsupport.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On MariaDB Connector/J the provider prepares its statements on the server, whatever the pool's URL says, and runs
 * them with the binary protocol; a server that holds as many prepared statements as it allows refuses the prepare
 * (error 1461), and the provider runs the same statements prepared on the client instead, with nothing failed. The
 * server's own counters tell which: {@code Com_stmt_execute} counts server-side executions, {@code Com_insert} and
 * {@code Com_delete} every insert and delete.
 */
class MariaDbServerPreparedTest {

	private static final TestDatabase DB = TestDatabase.MARIADB;

	private static final OwnerDetails OWNER = new OwnerDetails("server-prepared", "host");

	private static LockRequest plain(String key) {
		return new LockRequest(key, OwnerTokens.next(), Duration.ofSeconds(30), LockMode.EXCLUSIVE, 1, OWNER);
	}

	@Test
	void theLockStatementsArePreparedOnTheServerAndStillWorkWhenTheServerRefusesMorePreparedStatements() {
		JdbcTemplate admin = new JdbcTemplate(DB.dataSource());
		String key = "prepared:" + System.nanoTime();
		try (HikariDataSource pool = DB.pool(DB.jdbcUrl(DB.port()), 2)) {
			JdbcLockProvider provider = new JdbcLockProvider(pool, DB.dialect(), JdbcLockSettings.defaults());
			long executed = status(admin, "Com_stmt_execute");
			for (int i = 0; i < 10; i++) {
				Lease lease = provider.tryAcquire(plain(key)).orElseThrow();
				assertThat(lease.release()).isTrue();
			}
			// Each cycle is an INSERT IGNORE and a DELETE, both executed as server-side prepared statements.
			assertThat(status(admin, "Com_stmt_execute") - executed).as("server-side executions")
				.isGreaterThanOrEqualTo(20);

			String limit = admin.queryForObject("SELECT @@GLOBAL.max_prepared_stmt_count", String.class);
			admin.execute("SET GLOBAL max_prepared_stmt_count = 0");
			try (HikariDataSource fresh = DB.pool(DB.jdbcUrl(DB.port()), 2)) {
				// A pool whose connections have prepared nothing yet: every server-side prepare is refused.
				JdbcLockProvider refused = new JdbcLockProvider(fresh, DB.dialect(), JdbcLockSettings.defaults());
				long inserts = status(admin, "Com_insert");
				long deletes = status(admin, "Com_delete");
				executed = status(admin, "Com_stmt_execute");
				for (int i = 0; i < 10; i++) {
					Lease lease = refused.tryAcquire(plain(key)).orElseThrow();
					assertThat(lease.release()).isTrue();
				}
				assertThat(status(admin, "Com_insert") - inserts).as("inserts").isGreaterThanOrEqualTo(10);
				assertThat(status(admin, "Com_delete") - deletes).as("deletes").isGreaterThanOrEqualTo(10);
				// Prepared on the client now (another test's purger could run a server-side one meanwhile).
				assertThat(status(admin, "Com_stmt_execute") - executed).as("server-side executions").isLessThan(10);
				assertThat(admin.queryForList("SELECT lock_key FROM " + JdbcLockSettings.DEFAULT_TABLE
						+ " WHERE lock_key = ?", String.class, key)).as("every lock released, no row left").isEmpty();
				refused.close();
			}
			finally {
				admin.execute("SET GLOBAL max_prepared_stmt_count = " + Long.parseLong(limit));
				LockDatabase.ServerPrepared.resume();
			}
			provider.close();
		}
	}

	private static long status(JdbcTemplate admin, String name) {
		return admin.queryForObject("SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = ?",
				Long.class, name.toUpperCase(java.util.Locale.ROOT));
	}

}
