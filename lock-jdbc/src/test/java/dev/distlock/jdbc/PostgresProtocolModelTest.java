package dev.distlock.jdbc;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.test.kit.StoreProtocolModelTest;
import dev.distlock.test.kit.StoreRecords;
import dev.distlock.jdbc.testsupport.TestDatabase;

/**
 * The model-based protocol test on a real PostgreSQL server of this JVM: two started providers on one database stand for
 * two instances, and the leftover check reads the lock table ({@link JdbcStoreRecords}).
 */
class PostgresProtocolModelTest extends StoreProtocolModelTest {

	@Override
	protected LockProvider createProvider() {
		return TestDatabase.POSTGRESQL.provider(JdbcLockSettings.defaults());
	}

	@Override
	protected void destroyProvider(LockProvider provider) {
		((JdbcLockProvider) provider).close();
	}

	@Override
	protected StoreRecords storeRecords() {
		return new JdbcStoreRecords(TestDatabase.POSTGRESQL.dataSource(), TestDatabase.POSTGRESQL.dialect(),
				JdbcLockSettings.defaults().table());
	}

}
