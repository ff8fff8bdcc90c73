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
 * The kits' leftover probe on the lock table, read directly: every row whose key or lock ID contains the marker. A
 * row with a live holder and no TTL ({@code ttl_ms IS NULL}) never ends on its own; any other row ends at its
 * {@code expires_at} by the database's clock (the purger then deletes it).
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
		String sql = "SELECT lock_key, holder, lock_id, ttl_ms IS NULL AND expires_at > " + now
				+ " AND (holder <> '' OR token IS NOT NULL), " + remainingMs + " FROM " + table
				+ " WHERE lock_key LIKE ? OR lock_id LIKE ?";
		String like = "%" + marker.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%";
		List<StoreRecord> records = new ArrayList<>();
		try (Connection connection = dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement(sql)) {
			statement.setString(1, like);
			statement.setString(2, like);
			try (ResultSet rs = statement.executeQuery()) {
				while (rs.next()) {
					boolean forever = rs.getBoolean(4);
					Duration expiresIn = forever ? null : Duration.ofMillis(Math.max(0, rs.getLong(5)));
					records.add(new StoreRecord(rs.getString(1), expiresIn,
							"row holder=" + rs.getString(2) + " lockId=" + rs.getString(3)));
				}
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(sql, ex);
		}
		return records;
	}

}
