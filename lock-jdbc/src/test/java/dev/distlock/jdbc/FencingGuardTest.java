package dev.distlock.jdbc;

import java.time.Duration;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.jdbc.testsupport.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A former holder that paused past its lease while another took the lock has its write refused by the fencing guard,
 * and the newer holder's write stays.
 */
class FencingGuardTest {

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aPausedFormerHoldersWriteIsRefused(TestDatabase db) throws Exception {
		JdbcTemplate jdbc = new JdbcTemplate(db.dataSource());
		String table = "accounts_" + Long.toString(System.nanoTime(), 36);
		jdbc.execute("CREATE TABLE " + table + " (id VARCHAR(20) PRIMARY KEY, balance INT NOT NULL, fence BIGINT)");
		jdbc.update("INSERT INTO " + table + " (id, balance) VALUES ('dana', 100)");
		FencingGuard guard = new FencingGuard(jdbc, table, "fence");
		JdbcLockProvider provider = db.provider(JdbcLockSettings.defaults());
		LockTemplate locks = LockTemplate.builder(provider).keyPrefix("guard:" + System.nanoTime() + ":").build();

		LockHandle former = locks.acquire("dana", LockOptions.builder().timeout(Duration.ofMillis(300)).build());
		Thread.sleep(600); // the former holder pauses past its lease
		LockHandle current = locks.acquire("dana", LockOptions.builder().timeout(Duration.ofSeconds(30)).build());
		assertThat(guard.update("balance = ?", "id = ?", current.fencingToken(), 70, "dana")).isEqualTo(1);

		assertThat(guard.update("balance = ?", "id = ?", former.fencingToken(), 90, "dana")).isZero();
		assertThat(jdbc.queryForObject("SELECT balance FROM " + table + " WHERE id = 'dana'", Integer.class))
			.isEqualTo(70);
		assertThat(jdbc.queryForObject("SELECT fence FROM " + table + " WHERE id = 'dana'", Long.class))
			.isEqualTo(current.fencingToken());
		current.release();
		locks.close();
		provider.close();
		jdbc.execute("DROP TABLE " + table);
	}

}
