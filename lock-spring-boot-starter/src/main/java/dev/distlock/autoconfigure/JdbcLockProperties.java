package dev.distlock.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.sql.init.DatabaseInitializationMode;

import dev.distlock.jdbc.JdbcLockSettings;

/**
 * The {@code distributed-lock.jdbc.*} properties, beside the auto-configuration that uses them. Each starts from
 * {@link JdbcLockSettings#defaults()}, the only copy of the defaults.
 */
@ConfigurationProperties("distributed-lock.jdbc")
public class JdbcLockProperties {

	/**
	 * Table holding the locks, a plain SQL identifier; its fencing sequence is named after it with "_fence".
	 */
	private String table = JdbcLockSettings.defaults().table();

	/**
	 * When to create the lock table and its sequence at startup: embedded (only for an embedded database), always or
	 * never.
	 */
	private DatabaseInitializationMode initializeSchema = DatabaseInitializationMode.EMBEDDED;

	/**
	 * How often rows of expired and released locks are purged; never when unset.
	 */
	private @Nullable Duration purgeInterval = JdbcLockSettings.defaults().purgeInterval();

	/**
	 * How long a lock must have been expired or released before its row is purged.
	 */
	private Duration purgeGrace = JdbcLockSettings.defaults().purgeGrace();

	/**
	 * How many rows one purge transaction deletes at most.
	 */
	private int purgeBatch = JdbcLockSettings.defaults().purgeBatch();

	/**
	 * The longest any lock call may take, however long its lease; each call also ends with the lease it serves.
	 */
	private Duration callTimeout = JdbcLockSettings.defaults().callTimeout();

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

	public @Nullable Duration getPurgeInterval() {
		return purgeInterval;
	}

	public void setPurgeInterval(@Nullable Duration purgeInterval) {
		this.purgeInterval = purgeInterval;
	}

	public Duration getPurgeGrace() {
		return purgeGrace;
	}

	public void setPurgeGrace(Duration purgeGrace) {
		this.purgeGrace = purgeGrace;
	}

	public int getPurgeBatch() {
		return purgeBatch;
	}

	public void setPurgeBatch(int purgeBatch) {
		this.purgeBatch = purgeBatch;
	}

	public Duration getCallTimeout() {
		return callTimeout;
	}

	public void setCallTimeout(Duration callTimeout) {
		this.callTimeout = callTimeout;
	}

}
