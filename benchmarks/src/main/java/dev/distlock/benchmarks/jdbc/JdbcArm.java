package dev.distlock.benchmarks.jdbc;

import com.zaxxer.hikari.HikariDataSource;

import dev.distlock.benchmarks.harness.ConnectionGauge;
import dev.distlock.benchmarks.harness.LockArm;
import dev.distlock.jdbc.JdbcLockProvider;
import dev.distlock.jdbc.JdbcLockSettings;

/**
 * What every JDBC arm shares: the database, one pool of the same size per client (as a separate JVM would have), a
 * gauge all of the arm's pools report to, and the table the arm locks in.
 */
public abstract class JdbcArm implements LockArm {

	private final BenchmarkDatabase database;

	private final int poolSize;

	private final ConnectionGauge gauge = new ConnectionGauge();

	private int pools;

	JdbcArm(BenchmarkDatabase database, int poolSize) {
		this.database = database;
		this.poolSize = poolSize;
	}

	/** Creates the arm's table (and sequence) if it does not exist; run once per server, before any client. */
	public abstract void createSchema();

	/** The table the arm locks in, emptied between phases. */
	public abstract String table();

	@Override
	public boolean renewing() {
		return false;
	}

	@Override
	public ConnectionGauge connections() {
		return gauge;
	}

	BenchmarkDatabase database() {
		return database;
	}

	/** A new pool for one client. */
	HikariDataSource newPool() {
		return newPool("");
	}

	/** Distlock's provider on one client's pool, with the default settings, started. */
	JdbcLockProvider newDistlockProvider(HikariDataSource pool) {
		JdbcLockProvider provider = new JdbcLockProvider(pool, database.dialect(), JdbcLockSettings.defaults());
		provider.start();
		return provider;
	}

	/** A new pool for one client, with driver options appended to the URL. */
	synchronized HikariDataSource newPool(String urlOptions) {
		return database.pool(getClass().getSimpleName() + "-" + (++pools), poolSize, gauge, urlOptions);
	}

}
