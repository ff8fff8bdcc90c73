package dev.distlock.autoconfigure;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.List;

import javax.sql.DataSource;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.context.annotation.Bean;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.jdbc.JdbcLockProvider;
import dev.distlock.jdbc.JdbcLockSettings;

/**
 * The JDBC provider (PostgreSQL, MySQL/MariaDB), on the {@link DataSource} qualified
 * {@link DistributedLockDataSource} or else the application's single (or primary) one. At startup it
 * creates the lock table as {@code jdbc.initialize-schema} says, in Spring Boot's style, and fails with a report
 * naming the table, the database and that property when the table is missing. Runs after distlock's Redis and MongoDB
 * auto-configurations, so {@code provider=auto} prefers those stores when they are configured.
 */
@AutoConfiguration(before = DistributedLockAutoConfiguration.class,
		after = { RedisLockAutoConfiguration.class, MongoLockAutoConfiguration.class },
		afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass({ JdbcLockProvider.class, DataSource.class, DatabaseInitializationMode.class,
		EmbeddedDatabaseConnection.class })
@ConditionalOnLocksEnabled
@ConditionalOnLockProvider(LockProviderType.JDBC)
@EnableConfigurationProperties(JdbcLockProperties.class)
public final class JdbcLockAutoConfiguration {

	/**
	 * The provider on the data source qualified {@link DistributedLockDataSource}, when the application has one,
	 * unless it has its own {@link LockProvider}.
	 */
	@Bean(initMethod = "start", destroyMethod = "close")
	@ConditionalOnMissingBean(LockProvider.class)
	@ConditionalOnBean(annotation = DistributedLockDataSource.class)
	JdbcLockProvider jdbcLockProviderOnItsOwnDataSource(@DistributedLockDataSource DataSource dataSource,
			JdbcLockProperties properties, ObjectProvider<LockThreads> threads) {
		return provider(dataSource, properties, threads);
	}

	/**
	 * The provider on the application's single data source (or its primary one), unless it has its own
	 * {@link LockProvider} or a data source qualified {@link DistributedLockDataSource}.
	 */
	@Bean(initMethod = "start", destroyMethod = "close")
	@ConditionalOnMissingBean(LockProvider.class)
	@ConditionalOnSingleCandidate(DataSource.class)
	JdbcLockProvider jdbcLockProvider(DataSource dataSource, JdbcLockProperties properties,
			ObjectProvider<LockThreads> threads) {
		return provider(dataSource, properties, threads);
	}

	/**
	 * The provider; the table is checked (and created when asked) before it is returned, so a missing table fails
	 * startup.
	 */
	private static JdbcLockProvider provider(DataSource dataSource, JdbcLockProperties properties,
			ObjectProvider<LockThreads> threads) {
		JdbcLockProvider provider = new JdbcLockProvider(dataSource, settings(properties));
		threads.ifAvailable(own -> provider.purgeScheduler(own.scheduler()));
		DatabaseInitializationMode mode = properties.getInitializeSchema();
		if (mode == DatabaseInitializationMode.ALWAYS
				|| (mode == DatabaseInitializationMode.EMBEDDED && EmbeddedDatabaseConnection.isEmbedded(dataSource))) {
			provider.createSchema();
		}
		List<String> missing = provider.missingTables();
		if (!missing.isEmpty()) {
			StringBuilder tables = new StringBuilder("the " + role(missing.get(0), properties) + " '" + missing.get(0)
					+ "' does not exist");
			for (String table : missing.subList(1, missing.size())) {
				tables.append(", nor its ").append(role(table, properties)).append(" '").append(table).append('\'');
			}
			tables.append(missing.size() > 1 ? "," : "");
			throw LockPropertyValues.invalid("jdbc.initialize-schema", "is " + mode.name().toLowerCase()
					+ ", and " + tables + " in " + database(dataSource)
					+ ": set distributed-lock.jdbc.initialize-schema=always to create it at startup, or create it with "
					+ "the DDL in " + provider.dialect().schemaResource() + " (docs/JDBC.md has it as a Flyway "
					+ "migration)");
		}
		if (provider.needsUpgrade()) {
			throw LockPropertyValues.invalid("jdbc.initialize-schema", "is " + mode.name().toLowerCase()
					+ ", and the lock table '" + properties.getTable() + "' in " + database(dataSource)
					+ " has the layout of a version before 2026-11-30 (a holder column): set "
					+ "distributed-lock.jdbc.initialize-schema=always to upgrade it at startup, or run the DDL in "
					+ provider.dialect().upgradeResource() + " (docs/JDBC.md, \"Upgrading\")");
		}
		return provider;
	}

	/** What the provider's table is, as a failure report names it. */
	private static String role(String table, JdbcLockProperties properties) {
		return table.equals(properties.getTable()) ? "lock table"
				: table.endsWith("_shared") ? "shared holders' table" : "lock-ID table";
	}

	/** The database as a failure report names it: product and URL. */
	private static String database(DataSource dataSource) {
		try (Connection connection = dataSource.getConnection()) {
			DatabaseMetaData meta = connection.getMetaData();
			return meta.getDatabaseProductName() + " database " + meta.getURL();
		}
		catch (SQLException ex) {
			return "the application's database";
		}
	}

	/**
	 * The settings; {@link JdbcLockSettings} checks the values and names the setting at fault, mapped here to its
	 * property.
	 */
	static JdbcLockSettings settings(JdbcLockProperties jdbc) {
		return LockPropertyValues.storeSettings("jdbc", () -> new JdbcLockSettings(jdbc.getTable(),
				jdbc.getPurgeInterval(), jdbc.getPurgeGrace(), jdbc.getPurgeBatch(), jdbc.getCallTimeout(),
				jdbc.isServerPreparedStatements()));
	}

}
