package dev.distlock.benchmarks.jdbc;

import com.zaxxer.hikari.HikariDataSource;

import dev.distlock.benchmarks.harness.LockClient;
import dev.distlock.benchmarks.harness.ProviderClient;
import dev.distlock.jdbc.JdbcLockProvider;
import dev.distlock.jdbc.JdbcLockSettings;

/**
 * A diagnostic arm: distlock's {@link JdbcLockProvider} called through its SPI ({@code tryAcquire},
 * {@code Lease.release}), without {@code LockTemplate}, retrying a held lock every millisecond as the floor does. Set
 * against the floor it shows what the provider's statements cost; against the distlock arm, what the template and its
 * waiting add.
 */
public final class DistlockJdbcProviderArm extends JdbcArm {

	/**
	 * An arm on the database, one pool of {@code poolSize} per client.
	 */
	public DistlockJdbcProviderArm(BenchmarkDatabase database, int poolSize) {
		super(database, poolSize);
	}

	@Override
	public String name() {
		return "distlock provider alone (SPI, retries every 1 ms)";
	}

	@Override
	public void createSchema() {
		// the distlock arm's table
	}

	@Override
	public String table() {
		return JdbcLockSettings.DEFAULT_TABLE;
	}

	@Override
	public LockClient newClient() {
		HikariDataSource pool = newPool();
		JdbcLockProvider provider = newDistlockProvider(pool);
		return new ProviderClient(provider, JdbcPause::retryDelay, () -> {
			provider.close();
			pool.close();
		});
	}

}
