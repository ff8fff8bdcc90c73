package dev.distlock.benchmarks.jdbc;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

import com.zaxxer.hikari.HikariDataSource;

import dev.distlock.benchmarks.harness.LockClient;
import dev.distlock.core.LockMode;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.jdbc.JdbcLockProvider;
import dev.distlock.jdbc.JdbcLockSettings;

/**
 * A diagnostic arm: distlock's {@link JdbcLockProvider} called through its SPI ({@code tryAcquire},
 * {@code Lease.release}), without {@code LockTemplate}, retrying a held lock every millisecond as the floor does. Set
 * against the floor it shows what the provider's statements cost; against the distlock arm, what the template and its
 * waiting add.
 */
public final class DistlockJdbcProviderArm extends JdbcArm {

	private static final Duration LEASE = Duration.ofSeconds(10);

	private static final OwnerDetails OWNER = new OwnerDetails("benchmarks", "localhost");

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
		return new Client(newPool(), this);
	}

	private static final class Client implements LockClient {

		private final HikariDataSource pool;

		private final JdbcLockProvider provider;

		Client(HikariDataSource pool, DistlockJdbcProviderArm arm) {
			this.pool = pool;
			this.provider = new JdbcLockProvider(pool, arm.database().dialect(), JdbcLockSettings.defaults());
			this.provider.start();
		}

		@Override
		public Object lock(String key) {
			ThreadLocalRandom random = ThreadLocalRandom.current();
			LockRequest request = new LockRequest(key,
					Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong()), LEASE,
					LockMode.EXCLUSIVE, 1, OWNER);
			Optional<Lease> lease;
			while ((lease = provider.tryAcquire(request)).isEmpty()) {
				JdbcPause.retryDelay();
			}
			return lease.get();
		}

		@Override
		public void unlock(Object held) {
			((Lease) held).release();
		}

		@Override
		public void close() {
			provider.close();
			pool.close();
		}

	}

}
