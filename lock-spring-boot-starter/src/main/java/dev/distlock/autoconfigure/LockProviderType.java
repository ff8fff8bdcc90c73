package dev.distlock.autoconfigure;

/**
 * Which store holds the locks, as {@code distributed-lock.provider}.
 */
public enum LockProviderType {

	/** Redis if configured, else MongoDB if configured, else a JDBC DataSource with lock-jdbc, else in-memory. */
	AUTO,

	/** Redis; startup fails if lock-redis or a {@code RedisConnectionFactory} is missing. */
	REDIS,

	/** MongoDB; startup fails if lock-mongo or a {@code MongoTemplate} is missing. */
	MONGO,

	/** A relational database (PostgreSQL, MySQL/MariaDB); startup fails if lock-jdbc or a {@code DataSource} is missing. */
	JDBC,

	/** Locks inside this JVM only: for tests and single-instance apps. */
	IN_MEMORY

}
