package dev.distlock.jdbc;

import dev.distlock.jdbc.testsupport.TestDatabase;

/**
 * The seams suite on PostgreSQL through a TCP proxy.
 */
class PostgresSeamsTest extends AbstractJdbcSeamsTest {

	@Override
	TestDatabase database() {
		return TestDatabase.POSTGRESQL;
	}

}
