package dev.distlock.jdbc;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.test.kit.LockProviderContractTest;
import dev.distlock.jdbc.testsupport.TestDatabase;

/**
 * The whole provider contract kit on a real MariaDB server of this test JVM.
 */
class MariaDbLockProviderContractTest extends LockProviderContractTest {

	@Override
	protected LockProvider createProvider() {
		return TestDatabase.MARIADB.provider(JdbcLockSettings.defaults());
	}

	@Override
	protected void destroyProvider(LockProvider provider) {
		((JdbcLockProvider) provider).close();
	}

}
