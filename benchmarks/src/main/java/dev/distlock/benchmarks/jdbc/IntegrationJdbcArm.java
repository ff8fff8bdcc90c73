package dev.distlock.benchmarks.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import dev.distlock.benchmarks.harness.LockClient;
import dev.distlock.benchmarks.harness.RegistryClient;
import dev.distlock.jdbc.JdbcDialect;

/**
 * Spring Integration's {@link JdbcLockRegistry} over a {@link DefaultLockRepository} (its own client id per client,
 * a {@link DataSourceTransactionManager} on the client's pool) with a 10 s expiry, on the {@code INT_LOCK} table from
 * the DDL its jar ships. Every other setting is the default a user gets, including the 100 ms idle between tries:
 * the registry waits by polling.
 */
public final class IntegrationJdbcArm extends JdbcArm {

	static final String TABLE = "INT_LOCK";

	/**
	 * An arm on the database, one pool of {@code poolSize} per client.
	 */
	public IntegrationJdbcArm(BenchmarkDatabase database, int poolSize) {
		super(database, poolSize);
	}

	@Override
	public String name() {
		return "Spring Integration JdbcLockRegistry (polls every 100 ms)";
	}

	@Override
	public void createSchema() {
		database().execute(lockTableDdl(database().dialect()));
	}

	/** The {@code CREATE TABLE INT_LOCK} statement of the schema script in the Spring Integration JDBC jar. */
	static String lockTableDdl(JdbcDialect dialect) {
		String resource = "/org/springframework/integration/jdbc/schema-"
				+ (dialect == JdbcDialect.POSTGRESQL ? "postgresql" : "mysql") + ".sql";
		try (InputStream in = JdbcLockRegistry.class.getResourceAsStream(resource)) {
			if (in == null) {
				throw new IllegalStateException("No " + resource + " in the Spring Integration JDBC jar");
			}
			String script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
			int start = script.indexOf("CREATE TABLE INT_LOCK ");
			if (start < 0) {
				throw new IllegalStateException("No INT_LOCK table in " + resource);
			}
			String ddl = script.substring(start, script.indexOf(';', start));
			return ddl.replace("CREATE TABLE INT_LOCK ", "CREATE TABLE IF NOT EXISTS INT_LOCK ");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	public String table() {
		return TABLE;
	}

	@Override
	public LockClient newClient() {
		HikariDataSource pool = newPool();
		DefaultLockRepository repository = new DefaultLockRepository(pool);
		repository.setTransactionManager(new DataSourceTransactionManager(pool));
		repository.afterPropertiesSet();
		repository.afterSingletonsInstantiated();
		return new RegistryClient(new JdbcLockRegistry(repository, Duration.ofSeconds(10)), () -> {
			repository.close();
			pool.close();
		});
	}

}
