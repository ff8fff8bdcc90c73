package dev.distlock.jdbc;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.test.kit.LockTemplateSeamsTest;
import dev.distlock.test.kit.StoreRecords;
import dev.distlock.test.kit.TcpProxy;
import dev.distlock.jdbc.testsupport.TestDatabase;

/**
 * The seams suite on a real database, the provider under test reached through a {@link TcpProxy} (lost replies, a
 * paused server, cut connections) by a pool whose socket timeout is {@link #COMMAND_TIMEOUT}; the probing template
 * talks to the server directly. One proxy and one proxied pool per database per test JVM.
 */
abstract class AbstractJdbcSeamsTest extends LockTemplateSeamsTest {

	static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	private static final Map<TestDatabase, Proxied> PROXIED = new EnumMap<>(TestDatabase.class);

	private record Proxied(TcpProxy proxy, HikariDataSource pool) {
	}

	abstract TestDatabase database();

	private Proxied proxied() {
		synchronized (PROXIED) {
			return PROXIED.computeIfAbsent(database(), db -> {
				db.dataSource(); // the server and the table
				TcpProxy proxy = TcpProxy.start(db.port());
				HikariConfig config = new HikariConfig();
				config.setJdbcUrl(socketTimeout(db, db.jdbcUrl(proxy.port())));
				config.setUsername(db == TestDatabase.POSTGRESQL ? "distlock" : "root");
				config.setMaximumPoolSize(10);
				config.setMinimumIdle(0);
				// Borrowing a connection through a stalled proxy gives up as a statement would.
				config.setConnectionTimeout(COMMAND_TIMEOUT.toMillis());
				config.setValidationTimeout(1_000);
				config.setPoolName("seams-" + db);
				HikariDataSource pool = new HikariDataSource(config);
				Runtime.getRuntime().addShutdownHook(new Thread(() -> {
					pool.close();
					proxy.close();
				}));
				return new Proxied(proxy, pool);
			});
		}
	}

	private static String socketTimeout(TestDatabase db, String url) {
		String separator = url.contains("?") ? "&" : "?";
		return db == TestDatabase.POSTGRESQL
				? url + separator + "socketTimeout=" + COMMAND_TIMEOUT.toSeconds() + "&connectTimeout=2"
				: url + separator + "socketTimeout=" + COMMAND_TIMEOUT.toMillis() + "&connectTimeout=2000";
	}

	@Override
	protected LockProvider createProvider() {
		JdbcLockProvider provider = new JdbcLockProvider(proxied().pool(), database().dialect(),
				JdbcLockSettings.defaults().withCallTimeout(COMMAND_TIMEOUT));
		provider.start();
		return provider;
	}

	@Override
	protected LockProvider createObserverProvider(LockProvider provider) {
		return database().provider(JdbcLockSettings.defaults());
	}

	@Override
	protected void destroyProvider(LockProvider provider) {
		((JdbcLockProvider) provider).close();
	}

	@Override
	protected StoreRecords storeRecords() {
		return new JdbcStoreRecords(database().dataSource(), database().dialect(), JdbcLockSettings.defaults().table());
	}

	@Override
	protected TcpProxy proxy() {
		return proxied().proxy();
	}

	@Override
	protected Duration commandTimeout() {
		return COMMAND_TIMEOUT;
	}

}
