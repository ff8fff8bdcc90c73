package dev.distlock.jdbc.testsupport;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;

import dev.distlock.jdbc.JdbcDialect;
import dev.distlock.jdbc.JdbcLockProvider;
import dev.distlock.jdbc.JdbcLockSettings;

/**
 * The two databases the JDBC provider is tested on, each a server of this test JVM with one shared pool and the lock
 * table created once.
 */
public enum TestDatabase {

	/** PostgreSQL 15, from {@link PostgresTestServer}. */
	POSTGRESQL(JdbcDialect.POSTGRESQL),

	/** MariaDB 10.11, from {@link MariaDbTestServer}. */
	MARIADB(JdbcDialect.MARIADB);

	private final JdbcDialect dialect;

	private HikariDataSource pool;

	TestDatabase(JdbcDialect dialect) {
		this.dialect = dialect;
	}

	/** The dialect of this database. */
	public JdbcDialect dialect() {
		return dialect;
	}

	/** The port of the server (started on first use). */
	public int port() {
		return this == POSTGRESQL ? PostgresTestServer.shared().port() : MariaDbTestServer.shared().port();
	}

	/** A JDBC URL to the server through {@code port} (its own, or a proxy's). */
	public String jdbcUrl(int port) {
		return this == POSTGRESQL ? PostgresTestServer.shared().jdbcUrl(port) : MariaDbTestServer.shared().jdbcUrl(port);
	}

	/** A new pool of {@code size} connections to {@code url}; the caller closes it. */
	public HikariDataSource pool(String url, int size) {
		return pool(url, size, null);
	}

	/** A new pool whose connections each run {@code initSql} first (when not null); the caller closes it. */
	public HikariDataSource pool(String url, int size, String initSql) {
		return this == POSTGRESQL ? PostgresTestServer.shared().pool(url, size, initSql)
				: MariaDbTestServer.shared().pool(url, size, initSql);
	}

	/** The shared pool of this JVM straight to the server, with the default lock table created. */
	public synchronized DataSource dataSource() {
		if (pool == null || pool.isClosed()) {
			pool = pool(jdbcUrl(port()), 20);
			JdbcLockProvider provider = new JdbcLockProvider(pool, dialect, JdbcLockSettings.defaults());
			provider.createSchema();
		}
		return pool;
	}

	/**
	 * Stops the server at once and starts it again in place (its data kept), then replaces the shared pool, whose
	 * connections died with the server.
	 */
	public synchronized void restart() {
		if (pool != null) {
			pool.close();
		}
		if (this == POSTGRESQL) {
			PostgresTestServer.shared().stop();
			PostgresTestServer.shared().start();
		}
		else {
			MariaDbTestServer.shared().stop();
			MariaDbTestServer.shared().start();
		}
	}

	/** A provider on the shared pool with the given settings, started; the caller closes it. */
	public JdbcLockProvider provider(JdbcLockSettings settings) {
		JdbcLockProvider provider = new JdbcLockProvider(dataSource(), dialect, settings);
		provider.start();
		return provider;
	}

}
