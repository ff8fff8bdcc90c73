package dev.distlock.jdbc;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.distlock.core.LockMode;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.internal.OwnerTokens;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.test.kit.TcpProxy;
import dev.distlock.jdbc.testsupport.JdbcStoreInspector;
import dev.distlock.jdbc.testsupport.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A grant without expiry that lands while its client cannot reach the database afterwards (its reply lost, every
 * clean-up release held up) is held only for its provisional lease, never for the 200 years a lasting one gets.
 */
class JdbcProvisionalGrantTest {

	private static final Duration CALL_TIMEOUT = Duration.ofSeconds(2);

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aGrantWithoutExpiryWhoseClientNeverHearsBackEndsByItself(TestDatabase db) throws Exception {
		db.dataSource(); // the server and the table
		String key = "provisional:" + System.nanoTime();
		JdbcStoreInspector inspector = new JdbcStoreInspector(db.dataSource(), db.dialect(), "distributed_locks");
		try (TcpProxy grantPath = TcpProxy.start(db.port()); TcpProxy laterPath = TcpProxy.start(db.port());
				HikariDataSource grantPool = pool(db, grantPath, "grant");
				HikariDataSource laterPool = pool(db, laterPath, "later")) {
			// The grant's connection runs the statement and loses its reply; every later connection (the second
			// statement, the clean-up releases) is held up far longer than this test. The grant is found by its key,
			// which its execution carries whether the statement was prepared on the client or (MariaDB) the server.
			grantPath.dropNextReplyAndCut(key);
			laterPath.stall(Duration.ofMinutes(10));
			JdbcLockProvider provider = new JdbcLockProvider(new FirstThenRest(grantPool, laterPool), db.dialect(),
					JdbcLockSettings.defaults().withCallTimeout(CALL_TIMEOUT));
			LockRequest request = new LockRequest(key, OwnerTokens.next(), Duration.ofSeconds(10),
					LockMode.EXCLUSIVE, 1, new OwnerDetails("provisional-test", "host"), null, true);
			Throwable thrown = catchThrowable(() -> provider.tryAcquire(request));
			assertThat(thrown).isInstanceOf(LockStoreException.class);
			assertThat(inspector.rows(key)).as("the grant ran on the server").containsExactly(key + "/");
			assertThat(inspector.heldForYears(key)).as("never made lasting").isEmpty();
			// Its provisional lease is twice the attempt's bound (4 s); generous here, never for good.
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
			while (!inspector.held(key).isEmpty() && System.nanoTime() - deadline < 0) {
				Thread.sleep(50);
			}
			assertThat(inspector.held(key)).as("held by a token nobody has").isEmpty();
			laterPath.resume(); // the background releases find the database again and end
			provider.close();
		}
	}

	private static HikariDataSource pool(TestDatabase db, TcpProxy proxy, String name) {
		String url = db.jdbcUrl(proxy.port());
		String separator = url.contains("?") ? "&" : "?";
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(db == TestDatabase.POSTGRESQL ? url + separator + "socketTimeout=2&connectTimeout=2"
				: url + separator + "socketTimeout=2000&connectTimeout=2000");
		config.setUsername(db == TestDatabase.POSTGRESQL ? "distlock" : "root");
		config.setMaximumPoolSize(2);
		config.setMinimumIdle(0);
		config.setConnectionTimeout(CALL_TIMEOUT.toMillis());
		config.setValidationTimeout(1_000);
		config.setPoolName("provisional-" + name + "-" + db);
		return new HikariDataSource(config);
	}

	/** Lends the first connection from one pool and every later one from another. */
	private static final class FirstThenRest implements DataSource {

		private final DataSource first;

		private final DataSource rest;

		private final AtomicInteger lent = new AtomicInteger();

		FirstThenRest(DataSource first, DataSource rest) {
			this.first = first;
			this.rest = rest;
		}

		@Override
		public Connection getConnection() throws SQLException {
			return lent.getAndIncrement() == 0 ? first.getConnection() : rest.getConnection();
		}

		@Override
		public Connection getConnection(String username, String password) throws SQLException {
			throw new SQLFeatureNotSupportedException();
		}

		@Override
		public PrintWriter getLogWriter() {
			return null;
		}

		@Override
		public void setLogWriter(PrintWriter out) {
		}

		@Override
		public void setLoginTimeout(int seconds) {
		}

		@Override
		public int getLoginTimeout() {
			return 0;
		}

		@Override
		public Logger getParentLogger() throws SQLFeatureNotSupportedException {
			throw new SQLFeatureNotSupportedException();
		}

		@Override
		public <T> T unwrap(Class<T> iface) throws SQLException {
			throw new SQLException("Not a wrapper");
		}

		@Override
		public boolean isWrapperFor(Class<?> iface) {
			return false;
		}

	}

}
