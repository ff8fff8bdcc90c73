package dev.distlock.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.sql.init.DatabaseInitializationMode;

import dev.distlock.jdbc.JdbcLockSettings;

/**
 * The {@code distributed-lock.jdbc.*} properties, beside the auto-configuration that uses them. Each starts from
 * {@link JdbcLockSettings#defaults()}, the only copy of the defaults.
 */
@ConfigurationProperties("distributed-lock.jdbc")
public class JdbcLockProperties extends DatabaseLockProperties {

	/**
	 * Table holding the locks, a plain SQL identifier; its lock-ID table is named after it with "_ids", its fencing
	 * sequence with "_fence".
	 */
	private String table = JdbcLockSettings.defaults().table();

	/**
	 * When to create the lock tables and the sequence at startup: embedded (only for an embedded database), always or
	 * never.
	 */
	private DatabaseInitializationMode initializeSchema = DatabaseInitializationMode.EMBEDDED;

	/**
	 * How many rows one purge transaction deletes at most.
	 */
	private int purgeBatch = JdbcLockSettings.defaults().purgeBatch();

	/**
	 * On MariaDB Connector/J, whether the lock's hot statements are prepared on the server once per connection and kept
	 * open there; they are then sent on the driver's own connection, which a tracing or statement-logging DataSource
	 * wrapper does not see. False sends every statement through the pool's connection.
	 */
	private boolean serverPreparedStatements = JdbcLockSettings.defaults().serverPrepares();

	/** The properties at the store's defaults. */
	public JdbcLockProperties() {
		super(JdbcLockSettings.defaults().purgeInterval(), JdbcLockSettings.defaults().purgeGrace(),
				JdbcLockSettings.defaults().callTimeout());
	}

	public String getTable() {
		return table;
	}

	public void setTable(String table) {
		this.table = table;
	}

	public DatabaseInitializationMode getInitializeSchema() {
		return initializeSchema;
	}

	public void setInitializeSchema(DatabaseInitializationMode initializeSchema) {
		this.initializeSchema = initializeSchema;
	}

	public int getPurgeBatch() {
		return purgeBatch;
	}

	public void setPurgeBatch(int purgeBatch) {
		this.purgeBatch = purgeBatch;
	}

	public boolean isServerPreparedStatements() {
		return serverPreparedStatements;
	}

	public void setServerPreparedStatements(boolean serverPreparedStatements) {
		this.serverPreparedStatements = serverPreparedStatements;
	}

}
