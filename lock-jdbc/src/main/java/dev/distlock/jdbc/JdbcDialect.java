package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * Where the databases' SQL differs: the clock, interval arithmetic, the fencing sequence, how a statement hands back
 * the fencing token it drew, and the schema resource. Every time in a statement is the database's clock, read when
 * the statement runs: {@code clock_timestamp()} on PostgreSQL (never {@code now()}, frozen at the start of a
 * transaction), {@code UTC_TIMESTAMP(6)} on MySQL/MariaDB.
 */
public enum JdbcDialect {

	/** PostgreSQL 12+; tested on 15. Release wakes waiters through NOTIFY. */
	POSTGRESQL("clock_timestamp()", "TIMESTAMPTZ '1970-01-01 00:00:00+00'", "schema-postgresql.sql"),

	/** MariaDB 10.6+ (SKIP LOCKED, sequences); tested on 10.11. MySQL 8 lacks sequences: see docs/JDBC.md. */
	MARIADB("UTC_TIMESTAMP(6)", "TIMESTAMP'1970-01-01 00:00:00'", "schema-mariadb.sql");

	private final String now;

	private final String epoch;

	private final String schemaResource;

	JdbcDialect(String now, String epoch, String schemaResource) {
		this.now = now;
		this.epoch = epoch;
		this.schemaResource = schemaResource;
	}

	/**
	 * The dialect of the database behind the connection, from its product name.
	 * @throws IllegalStateException for a database neither PostgreSQL nor MySQL/MariaDB
	 */
	public static JdbcDialect of(Connection connection) throws SQLException {
		String product = connection.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
		if (product.contains("postgres")) {
			return POSTGRESQL;
		}
		if (product.contains("mariadb") || product.contains("mysql")) {
			return MARIADB;
		}
		throw new IllegalStateException("distlock has no JDBC dialect for '" + product
				+ "': PostgreSQL and MySQL/MariaDB are supported");
	}

	/** The database clock, read when the statement runs. */
	String now() {
		return now;
	}

	/** A time before every lock: the lease end of a row nobody ever held. */
	String epoch() {
		return epoch;
	}

	/** The database clock plus a bound parameter of milliseconds. */
	String nowPlusMillis() {
		return this == POSTGRESQL ? "(clock_timestamp() + ? * INTERVAL '1 millisecond')"
				: "(UTC_TIMESTAMP(6) + INTERVAL ? * 1000 MICROSECOND)";
	}

	/** The database clock minus a bound parameter of milliseconds. */
	String nowMinusMillis() {
		return this == POSTGRESQL ? "(clock_timestamp() - ? * INTERVAL '1 millisecond')"
				: "(UTC_TIMESTAMP(6) - INTERVAL ? * 1000 MICROSECOND)";
	}

	/** Microseconds from the database clock to the time in {@code column} (negative once passed). */
	String microsUntil(String column) {
		return this == POSTGRESQL ? "CAST(EXTRACT(EPOCH FROM (" + column + " - clock_timestamp())) * 1000000 AS BIGINT)"
				: "TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), " + column + ")";
	}

	/**
	 * The next value of the fencing sequence. On MariaDB it is also stored as the session's LAST_INSERT_ID, which the
	 * server returns in the statement's OK packet, so an UPDATE hands it back in the same round trip.
	 */
	String nextFence(String sequence) {
		return this == POSTGRESQL ? "nextval('" + sequence + "')" : "LAST_INSERT_ID(NEXTVAL(" + sequence + "))";
	}

	/**
	 * The row's own fencing token when {@code condition} holds (a replayed grant), else the next one; handed back as
	 * {@link #nextFence} is.
	 */
	String keepOrNextFence(String condition, String sequence) {
		return this == POSTGRESQL ? "CASE WHEN " + condition + " THEN fence ELSE nextval('" + sequence + "') END"
				: "LAST_INSERT_ID(CASE WHEN " + condition + " THEN fence ELSE NEXTVAL(" + sequence + ") END)";
	}

	/** Whether statements hand back the fencing token with RETURNING (else through the generated key). */
	boolean returning() {
		return this == POSTGRESQL;
	}

	/** The classpath resource holding this dialect's DDL. */
	public String schemaResource() {
		return "dev/distlock/jdbc/" + schemaResource;
	}

	/**
	 * The statements that turn a lock table an earlier version created, with the shared holders' rows in it (a
	 * {@code holder} column), into the layout of {@link #schemaResource()}.
	 */
	public String upgradeResource() {
		return schemaResource().replace(".sql", "-upgrade.sql");
	}

	/** Reads a time column as an instant (UTC on both databases). */
	@Nullable
	Instant instant(ResultSet rs, String column) throws SQLException {
		if (this == POSTGRESQL) {
			OffsetDateTime time = rs.getObject(column, OffsetDateTime.class);
			return time != null ? time.toInstant() : null;
		}
		LocalDateTime time = rs.getObject(column, LocalDateTime.class);
		return time != null ? time.toInstant(ZoneOffset.UTC) : null;
	}

	/** The NOTIFY channel of a table on PostgreSQL: the table's name as the server folds it. */
	static String channel(String table) {
		return table.toLowerCase(Locale.ROOT);
	}

}
