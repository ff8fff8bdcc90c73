package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import dev.distlock.test.kit.StoreRecords;

/**
 * The kits' leftover probe on the lock table and its lock-ID table, read directly: every row whose key or lock ID
 * contains the marker. A row with a live holder and no TTL ({@code ttl_ms IS NULL}) never ends on its own; any other
 * row ends at its {@code expires_at} by the database's clock (the purger then deletes it). A lock-ID record lives as
 * long as its row while the row still carries its token and ID, and is stale (the purger deletes it) after.
 */
final class JdbcStoreRecords implements StoreRecords {

	private final DataSource dataSource;

	private final JdbcDialect dialect;

	private final String table;

	JdbcStoreRecords(DataSource dataSource, JdbcDialect dialect, String table) {
		this.dataSource = dataSource;
		this.dialect = dialect;
		this.table = table;
	}

	@Override
	public List<StoreRecord> list(String marker) {
		String now = dialect == JdbcDialect.POSTGRESQL ? "clock_timestamp()" : "UTC_TIMESTAMP(6)";
		String remainingMs = dialect == JdbcDialect.POSTGRESQL
				? "CAST(EXTRACT(EPOCH FROM (expires_at - " + now + ")) * 1000 AS BIGINT)"
				: "TIMESTAMPDIFF(MICROSECOND, " + now + ", expires_at) DIV 1000";
		// Both kinds of row: the key rows (holder empty) and the shared holders' rows.
		String rows = "(SELECT lock_key, '' AS holder, token, lock_id, fence, ttl_ms, expires_at FROM " + table
				+ " UNION ALL SELECT lock_key, holder, token, lock_id, fence, ttl_ms, expires_at FROM " + table
				+ "_shared)";
		String sql = "SELECT lock_key, holder, lock_id, ttl_ms IS NULL AND expires_at > " + now
				+ " AND (holder <> '' OR token IS NOT NULL), " + remainingMs + " FROM " + rows + " r"
				+ " WHERE lock_key LIKE ? OR lock_id LIKE ?";
		// A lock-ID record lives as long as the row it points to still carries its token and ID; once it does not,
		// it is stale and the purger deletes it (0 left).
		String recordSql = "SELECT i.lock_key, i.holder, i.lock_id, t.lock_key IS NOT NULL AND t.ttl_ms IS NULL AND "
				+ "t.expires_at > " + now + ", CASE WHEN t.lock_key IS NULL THEN 0 ELSE " + remainingMs.replace(
						"expires_at", "t.expires_at") + " END FROM " + table + "_ids i LEFT JOIN " + rows + " t ON "
				+ "t.lock_key = i.lock_key AND t.holder = i.holder AND t.fence = i.fence AND t.token = i.token AND "
				+ "t.lock_id = i.lock_id "
				+ "WHERE i.lock_key LIKE ? OR i.lock_id LIKE ?";
		String like = "%" + marker.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%";
		List<StoreRecord> records = new ArrayList<>();
		try (Connection connection = dataSource.getConnection()) {
			read(connection, sql, like, "row", records);
			read(connection, recordSql, like, "lock-ID record", records);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(sql, ex);
		}
		return records;
	}

	private static void read(Connection connection, String sql, String like, String what, List<StoreRecord> records)
			throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			statement.setString(1, like);
			statement.setString(2, like);
			try (ResultSet rs = statement.executeQuery()) {
				while (rs.next()) {
					boolean forever = rs.getBoolean(4);
					Duration expiresIn = forever ? null : Duration.ofMillis(Math.max(0, rs.getLong(5)));
					records.add(new StoreRecord(rs.getString(1), expiresIn,
							what + " holder=" + rs.getString(2) + " lockId=" + rs.getString(3)));
				}
			}
		}
	}

}
