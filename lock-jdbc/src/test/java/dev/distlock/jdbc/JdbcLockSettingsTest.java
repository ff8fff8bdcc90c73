package dev.distlock.jdbc;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.distlock.core.InvalidLockOptionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The settings fail fast, naming the setting, and a table name can never carry SQL.
 */
class JdbcLockSettingsTest {

	@Test
	void tableNamesThatAreNotPlainIdentifiersAreRefused() {
		for (String bad : new String[] { "locks; DROP TABLE users", "\"locks\"", "1locks", "lo-cks", "", "a".repeat(49),
				"locks--", "schema.locks" }) {
			assertThatThrownBy(() -> JdbcLockSettings.defaults().withTable(bad))
				.isInstanceOf(InvalidLockOptionException.class)
				.hasMessageContaining("table");
		}
		assertThat(JdbcLockSettings.defaults().withTable("app_locks_2").sequence()).isEqualTo("app_locks_2_fence");
	}

	@Test
	void purgeGraceAndCallTimeoutAreBounded() {
		assertThatThrownBy(() -> JdbcLockSettings.defaults().withPurge(Duration.ofMinutes(1), Duration.ofSeconds(59)))
			.isInstanceOf(InvalidLockOptionException.class).hasMessageContaining("purgeGrace");
		assertThatThrownBy(() -> JdbcLockSettings.defaults().withCallTimeout(Duration.ofMillis(999)))
			.isInstanceOf(InvalidLockOptionException.class).hasMessageContaining("callTimeout");
		assertThatThrownBy(() -> JdbcLockSettings.defaults().withPurge(Duration.ZERO, Duration.ofHours(1)))
			.isInstanceOf(InvalidLockOptionException.class).hasMessageContaining("purgeInterval");
	}

	@Test
	void theSchemaOfEachDialectNamesTheConfiguredTableAndSequence() {
		for (JdbcDialect dialect : JdbcDialect.values()) {
			assertThat(JdbcMaintenance.schema(dialect, JdbcLockSettings.defaults().withTable("app_locks")))
				.allSatisfy(statement -> assertThat(statement).doesNotContain("${"))
				.anySatisfy(statement -> assertThat(statement).startsWith("CREATE TABLE IF NOT EXISTS app_locks ("))
				.anySatisfy(statement -> assertThat(statement).startsWith("CREATE SEQUENCE IF NOT EXISTS app_locks_fence"));
		}
	}

}
