package dev.distlock.jdbc;

import dev.distlock.jdbc.testsupport.TestDatabase;

/**
 * The seams suite on MariaDB through a TCP proxy.
 */
class MariaDbSeamsTest extends AbstractJdbcSeamsTest {

	@Override
	TestDatabase database() {
		return TestDatabase.MARIADB;
	}

}
