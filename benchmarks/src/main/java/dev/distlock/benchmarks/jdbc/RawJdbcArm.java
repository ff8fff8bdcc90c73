package dev.distlock.benchmarks.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;

import com.zaxxer.hikari.HikariDataSource;

import dev.distlock.benchmarks.harness.LockClient;
import dev.distlock.jdbc.JdbcDialect;

/**
 * The JDBC floor: one statement to acquire, on the database clock, and an owner-checked {@code DELETE} to release,
 * each on a pooled connection in autocommit, with nothing else (no query timeout, no fencing token, no release mark).
 * PostgreSQL: {@code INSERT ... ON CONFLICT (lock_key) DO UPDATE ... WHERE expired RETURNING token} (a row back means
 * granted). MariaDB: {@code INSERT ... ON DUPLICATE KEY UPDATE} that changes the row only when expired (affected rows
 * 0 means held; its pool sets the driver's {@code useAffectedRows=true} to tell an unchanged row from a changed one).
 * A held lock is retried every millisecond; a deadlock the server breaks counts as a refusal.
 */
public final class RawJdbcArm extends JdbcArm {

	static final String TABLE = "bench_floor";

	static final String POSTGRES_ACQUIRE = "INSERT INTO " + TABLE + " (lock_key, token, expires_at) "
			+ "VALUES (?, ?, clock_timestamp() + INTERVAL '10 seconds') ON CONFLICT (lock_key) DO UPDATE "
			+ "SET token = EXCLUDED.token, expires_at = EXCLUDED.expires_at "
			+ "WHERE " + TABLE + ".expires_at <= clock_timestamp() RETURNING token";

	// MariaDB evaluates SET left to right: token is decided on the old expires_at, which is assigned last.
	private static final String MARIADB_ACQUIRE = "INSERT INTO " + TABLE + " (lock_key, token, expires_at) "
			+ "VALUES (?, ?, UTC_TIMESTAMP(6) + INTERVAL 10 SECOND) ON DUPLICATE KEY UPDATE "
			+ "token = IF(expires_at <= UTC_TIMESTAMP(6), VALUES(token), token), "
			+ "expires_at = IF(expires_at <= UTC_TIMESTAMP(6), VALUES(expires_at), expires_at)";

	static final String RELEASE = "DELETE FROM " + TABLE + " WHERE lock_key = ? AND token = ?";

	/**
	 * An arm on the database, one pool of {@code poolSize} per client.
	 */
	public RawJdbcArm(BenchmarkDatabase database, int poolSize) {
		super(database, poolSize);
	}

	@Override
	public String name() {
		return database().dialect() == JdbcDialect.POSTGRESQL
				? "floor: INSERT ON CONFLICT DO UPDATE RETURNING + DELETE"
				: "floor: INSERT ON DUPLICATE KEY UPDATE + DELETE";
	}

	@Override
	public void createSchema() {
		database().execute(schema(database().dialect()));
	}

	/**
	 * The floor's table. On PostgreSQL it has the storage setting distlock's table has ({@code vacuum_truncate =
	 * false}), so that the floor's statements by key run on the same plans as distlock's and the ratio compares
	 * statements, not tables (without it the floor's delete ran on scanning plans for part of each run).
	 */
	static String schema(JdbcDialect dialect) {
		return dialect == JdbcDialect.POSTGRESQL
				? "CREATE TABLE IF NOT EXISTS " + TABLE + " (lock_key VARCHAR(512) PRIMARY KEY, "
						+ "token VARCHAR(64) NOT NULL, expires_at TIMESTAMPTZ(6) NOT NULL) "
						+ "WITH (vacuum_truncate = false)"
				: "CREATE TABLE IF NOT EXISTS " + TABLE + " (lock_key VARCHAR(512) CHARACTER SET utf8mb4 COLLATE "
						+ "utf8mb4_bin PRIMARY KEY, token VARCHAR(64) CHARACTER SET ascii NOT NULL, "
						+ "expires_at DATETIME(6) NOT NULL) ENGINE = InnoDB";
	}

	@Override
	public String table() {
		return TABLE;
	}

	@Override
	public LockClient newClient() {
		boolean postgres = database().dialect() == JdbcDialect.POSTGRESQL;
		return new Client(newPool(postgres ? "" : "useAffectedRows=true"), postgres);
	}

	private record Held(String key, String token) {
	}

	private static final class Client implements LockClient {

		private final HikariDataSource pool;

		private final boolean postgres;

		Client(HikariDataSource pool, boolean postgres) {
			this.pool = pool;
			this.postgres = postgres;
		}

		@Override
		public Object lock(String key) {
			ThreadLocalRandom random = ThreadLocalRandom.current();
			String token = Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong());
			while (!tryLock(key, token)) {
				JdbcPause.retryDelay();
			}
			return new Held(key, token);
		}

		private boolean tryLock(String key, String token) {
			try (Connection connection = pool.getConnection();
					PreparedStatement statement = connection
						.prepareStatement(postgres ? POSTGRES_ACQUIRE : MARIADB_ACQUIRE)) {
				statement.setString(1, key);
				statement.setString(2, token);
				if (postgres) {
					try (ResultSet rs = statement.executeQuery()) {
						return rs.next();
					}
				}
				return statement.executeUpdate() > 0;
			}
			catch (SQLException ex) {
				if (isDeadlock(ex)) {
					return false;
				}
				throw new IllegalStateException("Floor acquire of '" + key + "' failed", ex);
			}
		}

		@Override
		public void unlock(Object held) {
			Held lock = (Held) held;
			try (Connection connection = pool.getConnection();
					PreparedStatement statement = connection.prepareStatement(RELEASE)) {
				statement.setString(1, lock.key());
				statement.setString(2, lock.token());
				statement.executeUpdate();
			}
			catch (SQLException ex) {
				if (isDeadlock(ex)) {
					unlock(held); // the server rolled the DELETE back: send it again
					return;
				}
				throw new IllegalStateException("Floor release of '" + lock.key() + "' failed", ex);
			}
		}

		private static boolean isDeadlock(SQLException ex) {
			return "40001".equals(ex.getSQLState()) || "40P01".equals(ex.getSQLState());
		}

		@Override
		public void close() {
			pool.close();
		}

	}

}
