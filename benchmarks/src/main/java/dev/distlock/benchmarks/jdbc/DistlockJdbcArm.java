package dev.distlock.benchmarks.jdbc;

import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;

import dev.distlock.benchmarks.harness.LockClient;
import dev.distlock.benchmarks.harness.TemplateClient;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.jdbc.JdbcLockProvider;
import dev.distlock.jdbc.JdbcLockSettings;

/**
 * distlock: {@link LockTemplate} on {@link JdbcLockProvider} with the default settings (table
 * {@code distributed_locks}, purger started), a 10 s lease and {@code waitUpTo(60 s)}. Waiting is the provider's: on
 * PostgreSQL a release's NOTIFY wakes the waiters of every client (one LISTEN connection per client, taken from its
 * pool), on MariaDB a waiter wakes at the template's retry delay (50 ms by default, or the one given) or the holder's
 * lease end, whichever comes first.
 */
public final class DistlockJdbcArm extends JdbcArm {

	private final LockOptions options;

	private final String label;

	/**
	 * An arm with the template's default retry delay (50 ms).
	 */
	public DistlockJdbcArm(BenchmarkDatabase database, int poolSize) {
		this(database, poolSize, null);
	}

	/**
	 * An arm with the given retry delay, or the default when null.
	 */
	public DistlockJdbcArm(BenchmarkDatabase database, int poolSize, @Nullable Duration delay) {
		super(database, poolSize);
		LockOptions.Builder builder = LockOptions.builder().timeout(Duration.ofSeconds(10)).waitUpTo(Duration.ofSeconds(60));
		if (delay != null) {
			builder.delay(delay);
		}
		this.options = builder.build();
		this.label = delay == null ? "distlock" : "distlock (retry delay " + delay.toMillis() + " ms)";
	}

	@Override
	public String name() {
		return label;
	}

	@Override
	public void createSchema() {
		try (HikariDataSource pool = newPool()) {
			new JdbcLockProvider(pool, database().dialect(), JdbcLockSettings.defaults()).createSchema();
		}
	}

	@Override
	public String table() {
		return JdbcLockSettings.DEFAULT_TABLE;
	}

	@Override
	public LockClient newClient() {
		HikariDataSource pool = newPool();
		JdbcLockProvider provider = newDistlockProvider(pool);
		return new TemplateClient(provider, options, () -> {
			provider.close();
			pool.close();
		});
	}

}
