package dev.distlock.benchmarks.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.distlock.benchmarks.harness.LockClient;
import dev.distlock.benchmarks.harness.ShedLockClient;
import dev.distlock.jdbc.JdbcDialect;

/**
 * ShedLock's {@link JdbcTemplateLockProvider} with {@code usingDbTime()} (expiry on the database clock),
 * {@code lockAtMostFor} 10 s, {@code lockAtLeastFor} zero, on its documented {@code shedlock} table. ShedLock never
 * waits, so a held lock is retried every millisecond.
 */
public final class ShedLockJdbcArm extends JdbcArm {

	static final String TABLE = "shedlock";

	/**
	 * An arm on the database, one pool of {@code poolSize} per client.
	 */
	public ShedLockJdbcArm(BenchmarkDatabase database, int poolSize) {
		super(database, poolSize);
	}

	@Override
	public String name() {
		return "ShedLock JdbcTemplateLockProvider (usingDbTime)";
	}

	@Override
	public void createSchema() {
		// ShedLock's README DDL for each database.
		database().execute(database().dialect() == JdbcDialect.POSTGRESQL
				? "CREATE TABLE IF NOT EXISTS " + TABLE + " (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP NOT NULL, "
						+ "locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))"
				: "CREATE TABLE IF NOT EXISTS " + TABLE + " (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP(3) NOT NULL, "
						+ "locked_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), locked_by VARCHAR(255) NOT NULL, "
						+ "PRIMARY KEY (name)) ENGINE = InnoDB");
	}

	@Override
	public String table() {
		return TABLE;
	}

	@Override
	public LockClient newClient() {
		HikariDataSource pool = newPool();
		JdbcTemplateLockProvider provider = new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
			.withJdbcTemplate(new JdbcTemplate(pool))
			.withTableName(TABLE)
			.usingDbTime()
			.build());
		return new ShedLockClient(provider, JdbcPause::retryDelay, pool::close);
	}

}
