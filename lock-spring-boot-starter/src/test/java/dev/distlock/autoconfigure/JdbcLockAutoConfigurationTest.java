package dev.distlock.autoconfigure;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.memory.InMemoryLockProvider;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.jdbc.JdbcDialect;
import dev.distlock.jdbc.JdbcLockProvider;
import dev.distlock.jdbc.testsupport.MariaDbTestServer;
import dev.distlock.jdbc.testsupport.PostgresTestServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * The JDBC auto-configuration on real PostgreSQL and MariaDB servers: picked with a DataSource when no other store
 * is configured, picked explicitly, creating the table as {@code initialize-schema} says, failing startup with a
 * report naming the table, the database and the setting when the table is missing, and backing off without
 * lock-jdbc.
 */
@ExtendWith(OutputCaptureExtension.class)
class JdbcLockAutoConfigurationTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RedisLockAutoConfiguration.class, MongoLockAutoConfiguration.class,
				JdbcLockAutoConfiguration.class, DistributedLockAutoConfiguration.class));

	private static String table() {
		return "boot_locks_" + Long.toString(System.nanoTime(), 36);
	}

	static DataSource postgres() {
		PostgresTestServer server = PostgresTestServer.shared();
		return new DriverManagerDataSource(server.jdbcUrl(), server.user(), "");
	}

	static DataSource mariadb() {
		MariaDbTestServer server = MariaDbTestServer.shared();
		return new DriverManagerDataSource(server.jdbcUrl(), server.user(), "");
	}

	@Test
	void withADataSourceAndNoOtherStoreTheJdbcProviderIsPickedAndLocks() {
		runner.withBean(DataSource.class, JdbcLockAutoConfigurationTest::postgres)
			.withPropertyValues("distributed-lock.jdbc.table=" + table(), "distributed-lock.jdbc.initialize-schema=always")
			.run(context -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(LockProvider.class)).isInstanceOf(JdbcLockProvider.class);
				assertThat(((JdbcLockProvider) context.getBean(LockProvider.class)).dialect())
					.isEqualTo(JdbcDialect.POSTGRESQL);
				LockTemplate template = context.getBean(LockTemplate.class);
				LockHandle handle = template.acquire("boot", LockOptions.builder().timeout(Duration.ofSeconds(30)).build());
				assertThat(template.isLocked("boot")).isTrue();
				handle.release();
			});
	}

	@Test
	void serverPreparedStatementsAreOnByDefaultAndThePropertyTurnsThemOff() {
		runner.withBean(DataSource.class, JdbcLockAutoConfigurationTest::mariadb)
			.withPropertyValues("distributed-lock.jdbc.table=" + table(), "distributed-lock.jdbc.initialize-schema=always")
			.run(context -> assertThat(context.getBean(JdbcLockProvider.class).settings().serverPrepares()).isTrue());
		runner.withBean(DataSource.class, JdbcLockAutoConfigurationTest::mariadb)
			.withPropertyValues("distributed-lock.jdbc.table=" + table(), "distributed-lock.jdbc.initialize-schema=always",
					"distributed-lock.jdbc.server-prepared-statements=false")
			.run(context -> {
				JdbcLockProvider provider = context.getBean(JdbcLockProvider.class);
				assertThat(provider.settings().serverPrepares()).isFalse();
				LockTemplate template = context.getBean(LockTemplate.class);
				LockHandle handle = template.acquire("text", LockOptions.builder().timeout(Duration.ofSeconds(30)).build());
				assertThat(template.isLocked("text")).isTrue();
				handle.release();
				assertThat(template.isLocked("text")).isFalse();
			});
	}

	@Test
	void aDataSourceQualifiedForTheLocksIsTheOneTheProviderUsesBesideThePrimaryOne() throws Exception {
		String table = table();
		runner.withUserConfiguration(TwoDataSources.class)
			.withPropertyValues("distributed-lock.jdbc.table=" + table, "distributed-lock.jdbc.initialize-schema=always")
			.run(context -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBeansOfType(JdbcLockProvider.class)).hasSize(1);
				JdbcLockProvider provider = context.getBean(JdbcLockProvider.class);
				assertThat(provider.dialect()).isEqualTo(JdbcDialect.MARIADB);
				LockTemplate template = context.getBean(LockTemplate.class);
				LockHandle handle = template.acquire("own-pool", LockOptions.builder().timeout(Duration.ofSeconds(30)).build());
				assertThat(rows(mariadb(), table)).isOne();
				handle.release();
			});
		// The primary data source (PostgreSQL) was left alone: no table was created there.
		try (Connection connection = postgres().getConnection();
				java.sql.ResultSet tables = connection.getMetaData().getTables(null, null, table, null)) {
			assertThat(tables.next()).isFalse();
		}
	}

	private static int rows(DataSource dataSource, String table) throws Exception {
		try (Connection connection = dataSource.getConnection();
				Statement statement = connection.createStatement();
				java.sql.ResultSet rs = statement.executeQuery("SELECT COUNT(*) FROM " + table)) {
			rs.next();
			return rs.getInt(1);
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class TwoDataSources {

		@Bean
		@org.springframework.context.annotation.Primary
		DataSource applicationDataSource() {
			return postgres();
		}

		@Bean
		@DistributedLockDataSource
		DataSource lockDataSource() {
			return mariadb();
		}

	}

	@Test
	void providerJdbcPicksItExplicitlyOnMariaDb() {
		runner.withBean(DataSource.class, JdbcLockAutoConfigurationTest::mariadb)
			.withPropertyValues("distributed-lock.provider=jdbc", "distributed-lock.jdbc.table=" + table(),
					"distributed-lock.jdbc.initialize-schema=always")
			.run(context -> {
				assertThat(context).hasNotFailed();
				JdbcLockProvider provider = context.getBean(JdbcLockProvider.class);
				assertThat(provider.dialect()).isEqualTo(JdbcDialect.MARIADB);
				assertThat(provider.tableExists()).isTrue();
			});
	}

	@Test
	void aMissingTableFailsStartupNamingTheTableTheDatabaseAndTheSetting() {
		String table = table();
		runner.withBean(DataSource.class, JdbcLockAutoConfigurationTest::postgres)
			.withPropertyValues("distributed-lock.jdbc.table=" + table)
			.run(context -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.hasMessageContaining("distributed-lock.jdbc.initialize-schema")
					.hasMessageContaining("the lock table '" + table + "' does not exist, nor its shared holders' table '"
							+ table + "_shared', nor its lock-ID table '" + table + "_ids', in PostgreSQL database")
					.hasMessageContaining("PostgreSQL database jdbc:postgresql://")
					.hasMessageContaining("initialize-schema=always");
			});
	}

	@Test
	void aLockTableWithoutItsLockIdTableFailsStartupNamingTheMissingOne() throws Exception {
		String table = table();
		DataSource dataSource = mariadb();
		runner.withBean(DataSource.class, () -> dataSource)
			.withPropertyValues("distributed-lock.jdbc.table=" + table, "distributed-lock.jdbc.initialize-schema=always")
			.run(context -> assertThat(context).hasNotFailed());
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute("DROP TABLE " + table + "_ids");
		}
		runner.withBean(DataSource.class, () -> dataSource)
			.withPropertyValues("distributed-lock.jdbc.table=" + table, "distributed-lock.jdbc.initialize-schema=never")
			.run(context -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.hasMessageContaining("is never, and the lock-ID table '" + table + "_ids' does not exist in ");
			});
	}

	@Test
	void aLockTableOfAnEarlierLayoutFailsStartupNamingTheUpgradeUnlessTheSchemaIsInitialized() throws Exception {
		String table = table();
		DataSource dataSource = postgres();
		runner.withBean(DataSource.class, () -> dataSource)
			.withPropertyValues("distributed-lock.jdbc.table=" + table, "distributed-lock.jdbc.initialize-schema=always")
			.run(context -> assertThat(context).hasNotFailed());
		// As a version before 2026-11-30 left it: the shared holders' rows in the lock table, keyed with them.
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute("ALTER TABLE " + table + " ADD COLUMN holder VARCHAR(64) NOT NULL DEFAULT ''");
			statement.execute("ALTER TABLE " + table + " DROP CONSTRAINT " + table + "_pkey");
			statement.execute("ALTER TABLE " + table + " ADD PRIMARY KEY (lock_key, holder)");
		}
		runner.withBean(DataSource.class, () -> dataSource)
			.withPropertyValues("distributed-lock.jdbc.table=" + table, "distributed-lock.jdbc.initialize-schema=never")
			.run(context -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.hasMessageContaining("the lock table '" + table + "' in PostgreSQL database")
					.hasMessageContaining("has the layout of a version before 2026-11-30 (a holder column)")
					.hasMessageContaining("initialize-schema=always")
					.hasMessageContaining("dev/distlock/jdbc/schema-postgresql-upgrade.sql");
			});
		runner.withBean(DataSource.class, () -> dataSource)
			.withPropertyValues("distributed-lock.jdbc.table=" + table, "distributed-lock.jdbc.initialize-schema=always")
			.run(context -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(JdbcLockProvider.class).needsUpgrade()).isFalse();
			});
	}

	@Test
	void neverLeavesAnExistingTableAsItIs() {
		String table = table();
		runner.withBean(DataSource.class, JdbcLockAutoConfigurationTest::postgres)
			.withPropertyValues("distributed-lock.jdbc.table=" + table, "distributed-lock.jdbc.initialize-schema=always")
			.run(context -> assertThat(context).hasNotFailed());
		runner.withBean(DataSource.class, JdbcLockAutoConfigurationTest::postgres)
			.withPropertyValues("distributed-lock.jdbc.table=" + table, "distributed-lock.jdbc.initialize-schema=never")
			.run(context -> assertThat(context.getBean(LockProvider.class)).isInstanceOf(JdbcLockProvider.class));
	}

	@Test
	void aTableNameThatIsNotAnIdentifierFailsNamingTheProperty() {
		runner.withBean(DataSource.class, JdbcLockAutoConfigurationTest::postgres)
			.withPropertyValues("distributed-lock.jdbc.table=locks;drop")
			.run(context -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("distributed-lock.jdbc.table");
			});
	}

	@Test
	void withoutLockJdbcTheAutoConfigurationBacksOffToInMemory() {
		runner.withBean(DataSource.class, JdbcLockAutoConfigurationTest::postgres)
			.withClassLoader(new FilteredClassLoader(JdbcLockProvider.class))
			.run(context -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(LockProvider.class)).isInstanceOf(InMemoryLockProvider.class);
			});
	}

	@Test
	void anotherProviderSettingLeavesTheDataSourceAlone() {
		runner.withBean(DataSource.class, JdbcLockAutoConfigurationTest::postgres)
			.withPropertyValues("distributed-lock.provider=in-memory")
			.run(context -> assertThat(context.getBean(LockProvider.class)).isInstanceOf(InMemoryLockProvider.class));
	}

	@Test
	void providerJdbcWithoutADataSourceFailsNamingWhatIsMissing(CapturedOutput output) {
		assertThatException().isThrownBy(() -> run("--distributed-lock.provider=jdbc"));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("'distributed-lock.provider' is jdbc, but no JDBC lock provider could be configured: the "
					+ "application has no DataSource bean.");
	}

	private static void run(String... args) {
		SpringApplication application = new SpringApplication(LockApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		application.run(args).close();
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ JdbcLockAutoConfiguration.class, DistributedLockAutoConfiguration.class })
	static class LockApplication {

		@Bean
		Object notADataSource() {
			return new Object();
		}

	}

}
