package dev.distlock.jdbc;

import java.time.Duration;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.InvalidLockOptionException;
import dev.distlock.core.LockOptions;

/**
 * Settings of the JDBC provider, validated on construction so bad configuration fails at startup.
 * @param table the table holding the locks: a plain SQL identifier (letters, digits, underscores, not starting with a
 * digit, at most 48 characters), never quoted text, so it cannot carry SQL; the fencing sequence is named after it
 * @param purgeInterval how often the purger runs, or null for never
 * @param purgeGrace how long a lock must have been expired before the purger deletes its row; at least
 * {@link #MIN_PURGE_GRACE}
 * @param purgeBatch how many rows one purge statement deletes at most
 * @param callTimeout the longest any lock call may take, however long its lease; 1 s to 10 min, 30 s by default
 * @param serverPrepares on MariaDB Connector/J, whether the statements of an uncontended cycle, a renewal and a waiting
 * attempt are prepared on the server once per connection and kept open there (on by default): sent on the driver's own
 * connection, unwrapped from the pool's, so a wrapper between the two (a tracing or statement-logging
 * {@code DataSource}) does not see these statements; off, every statement goes through the pool's connection
 */
public record JdbcLockSettings(String table, @Nullable Duration purgeInterval, Duration purgeGrace, int purgeBatch,
		Duration callTimeout, boolean serverPrepares) {

	/** The default table name. */
	public static final String DEFAULT_TABLE = "distributed_locks";

	/** The default call timeout. */
	public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(30);

	/** The shortest purge grace accepted: a replayed release reads its mark until the purger deletes it. */
	public static final Duration MIN_PURGE_GRACE = Duration.ofMinutes(1);

	private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,47}");

	/**
	 * Validates every setting; the error names the setting at fault by its field name (the starter maps it to its
	 * {@code distributed-lock.jdbc.*} property).
	 */
	public JdbcLockSettings {
		if (table == null || !IDENTIFIER.matcher(table).matches()) {
			throw new InvalidLockOptionException("table", "'" + table + "' is not a plain SQL identifier (letters, "
					+ "digits and underscores, not starting with a digit, at most 48 characters)");
		}
		if (purgeInterval != null && (purgeInterval.isNegative() || purgeInterval.isZero())) {
			throw new InvalidLockOptionException("purgeInterval",
					"must be positive (or unset for no purger), was " + purgeInterval);
		}
		if (purgeInterval != null) {
			LockOptions.checkDuration("purgeInterval", purgeInterval);
		}
		if (purgeGrace == null || purgeGrace.compareTo(MIN_PURGE_GRACE) < 0
				|| purgeGrace.compareTo(LockOptions.MAX_DURATION) > 0) {
			throw new InvalidLockOptionException("purgeGrace",
					"must be between 1 minute and 365 days, was " + purgeGrace);
		}
		if (purgeBatch < 1 || purgeBatch > 100_000) {
			throw new InvalidLockOptionException("purgeBatch", "must be between 1 and 100000, was " + purgeBatch);
		}
		if (callTimeout == null || callTimeout.compareTo(Duration.ofSeconds(1)) < 0
				|| callTimeout.compareTo(Duration.ofMinutes(10)) > 0) {
			throw new InvalidLockOptionException("callTimeout",
					"must be between 1 s and 10 min, was " + callTimeout);
		}
	}

	/** Settings with server-side prepares on (see {@link #serverPrepares}). */
	public JdbcLockSettings(String table, @Nullable Duration purgeInterval, Duration purgeGrace, int purgeBatch,
			Duration callTimeout) {
		this(table, purgeInterval, purgeGrace, purgeBatch, callTimeout, true);
	}

	/**
	 * Table {@code distributed_locks}, purge every 5 minutes in batches of 500 rows after 1 hour, call timeout 30 s,
	 * server-side prepares on. The starter's {@code distributed-lock.jdbc.*} properties start from these.
	 */
	public static JdbcLockSettings defaults() {
		return new JdbcLockSettings(DEFAULT_TABLE, Duration.ofMinutes(5), Duration.ofHours(1), 500,
				DEFAULT_CALL_TIMEOUT, true);
	}

	/** A copy using another table. */
	public JdbcLockSettings withTable(String name) {
		return new JdbcLockSettings(name, purgeInterval, purgeGrace, purgeBatch, callTimeout, serverPrepares);
	}

	/** A copy with another call timeout. */
	public JdbcLockSettings withCallTimeout(Duration timeout) {
		return new JdbcLockSettings(table, purgeInterval, purgeGrace, purgeBatch, timeout, serverPrepares);
	}

	/** A copy with another purge schedule. */
	public JdbcLockSettings withPurge(@Nullable Duration interval, Duration grace) {
		return new JdbcLockSettings(table, interval, grace, purgeBatch, callTimeout, serverPrepares);
	}

	/** A copy with server-side prepares on or off. */
	public JdbcLockSettings withServerPrepares(boolean on) {
		return new JdbcLockSettings(table, purgeInterval, purgeGrace, purgeBatch, callTimeout, on);
	}

	/** The name of the fencing sequence: the table's, with {@code _fence}. */
	public String sequence() {
		return table + "_fence";
	}

	/** The name of the table of shared holders, one row each: the table's, with {@code _shared}. */
	public String sharedTable() {
		return table + "_shared";
	}

	/** The name of the table through which locks are found by lock ID: the table's, with {@code _ids}. */
	public String lockIdTable() {
		return table + "_ids";
	}

}
