package dev.distlock.jdbc;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.test.kit.LockProviderContractTest;
import dev.distlock.jdbc.testsupport.TestDatabase;

/**
 * The whole provider contract kit on a real PostgreSQL server of this test JVM.
 */
class PostgresLockProviderContractTest extends LockProviderContractTest {

	@Override
	protected LockProvider createProvider() {
		return TestDatabase.POSTGRESQL.provider(JdbcLockSettings.defaults());
	}

	@Override
	protected void destroyProvider(LockProvider provider) {
		((JdbcLockProvider) provider).close();
	}

}
