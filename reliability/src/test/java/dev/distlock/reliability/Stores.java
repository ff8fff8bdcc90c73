package dev.distlock.reliability;

import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.distlock.core.LockTemplate;
import dev.distlock.jdbc.JdbcLockProvider;
import dev.distlock.jdbc.JdbcLockSettings;
import dev.distlock.jdbc.testsupport.MariaDbTestServer;
import dev.distlock.jdbc.testsupport.PostgresTestServer;
import dev.distlock.jdbc.testsupport.TestDatabase;
import dev.distlock.mongo.MongoLockProvider;
import dev.distlock.mongo.MongoLockSettings;
import dev.distlock.mongo.testsupport.MongoTestServer;
import dev.distlock.redis.RedisLockProvider;
import dev.distlock.redis.RedisLockSettings;
import dev.distlock.redis.testsupport.RedisServerProcess;

/**
 * Templates in the test JVM on the same stores and defaults the workers' starter uses, so a test can hold or take
 * the very key a worker process holds. Closing releases everything this instance built.
 */
final class Stores implements AutoCloseable {

	/**
	 * The JDBC driver and Spring Boot's DataSource are on the workers' classpath for the JDBC workers; without a URL
	 * the DataSource would fail the Redis and Mongo workers' startup.
	 */
	private static final String NO_DATASOURCE =
			"--spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration";

	private final List<AutoCloseable> resources = new ArrayList<>();

	/**
	 * A template on the Redis server, with the starter's default namespace and a one-second command timeout.
	 */
	LockTemplate redis(RedisServerProcess server) {
		LettuceConnectionFactory factory = server.connectionFactory();
		resources.add(factory::destroy);
		RedisLockProvider provider = new RedisLockProvider(factory, RedisLockSettings.defaults());
		resources.add(provider);
		return template(provider);
	}

	/**
	 * A template on the Mongo server's database, with the starter's default collection.
	 */
	LockTemplate mongo(MongoTestServer server) {
		MongoLockProvider provider = new MongoLockProvider(server.template(), MongoLockSettings.defaults());
		provider.start();
		resources.add(provider);
		return template(provider);
	}

	/**
	 * A template on the database's shared pool (the lock table created), with the starter's default settings.
	 */
	LockTemplate jdbc(TestDatabase database) {
		JdbcLockProvider provider = database.provider(JdbcLockSettings.defaults());
		resources.add(provider);
		return template(provider);
	}

	/**
	 * A template on a pool of the caller's (which closes it), with the starter's default settings; the lock table must
	 * exist.
	 */
	LockTemplate jdbc(TestDatabase database, DataSource pool) {
		JdbcLockProvider provider = new JdbcLockProvider(pool, database.dialect(), JdbcLockSettings.defaults());
		provider.start();
		resources.add(provider);
		return template(provider);
	}

	/**
	 * A pool of the test's own on the database, as the given name (empty while idle: no minimum), for a provider whose
	 * connections the test counts or cuts; the test adds what else it needs and makes the pool.
	 */
	static HikariConfig poolConfig(TestDatabase database, String name, int size) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(database.jdbcUrl(database.port()));
		config.setUsername(user(database));
		config.setMaximumPoolSize(size);
		config.setMinimumIdle(0);
		config.setPoolName(name);
		return config;
	}

	/**
	 * The user the database's test server lets in without a password.
	 */
	static String user(TestDatabase database) {
		return database == TestDatabase.POSTGRESQL ? PostgresTestServer.shared().user()
				: MariaDbTestServer.shared().user();
	}

	/**
	 * The worker arguments that point the starter at the Redis server.
	 */
	static List<String> workerArgs(RedisServerProcess server) {
		return List.of("--distributed-lock.provider=redis", "--spring.data.redis.host=127.0.0.1",
				"--spring.data.redis.port=" + server.port(), NO_DATASOURCE);
	}

	/**
	 * The worker arguments that point the starter at the Mongo server's database.
	 */
	static List<String> workerArgs(MongoTestServer server) {
		return List.of("--distributed-lock.provider=mongo", "--spring.mongodb.uri=" + server.connectionString(),
				"--spring.mongodb.database=" + server.database(), NO_DATASOURCE);
	}

	/**
	 * The worker arguments that point the starter's JDBC provider at the database, through Spring Boot's own
	 * DataSource, as an application configures it. The lock table is created here first: three workers creating it at
	 * once would race in the catalogue, which is not what these tests are about.
	 */
	static List<String> workerArgs(TestDatabase database) {
		database.dataSource();
		String user = user(database);
		return List.of("--distributed-lock.provider=jdbc", "--distributed-lock.jdbc.initialize-schema=always",
				"--spring.datasource.url=" + database.jdbcUrl(database.port()), "--spring.datasource.username=" + user,
				"--spring.datasource.password=");
	}

	private LockTemplate template(dev.distlock.core.spi.LockProvider provider) {
		LockTemplate template = LockTemplate.builder(provider).build();
		resources.add(0, template);
		return template;
	}

	@Override
	public void close() throws Exception {
		for (AutoCloseable resource : resources) {
			try {
				resource.close();
			}
			catch (RuntimeException ex) {
				// Closing after a store fault may fail; the rest must still close.
			}
		}
	}

}
