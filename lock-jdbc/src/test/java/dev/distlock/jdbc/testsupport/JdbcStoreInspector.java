package dev.distlock.jdbc.testsupport;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import dev.distlock.jdbc.JdbcDialect;

/**
 * Reads the lock table as an operator would, for tests that check what a disruption left behind: the keys whose rows
 * will never expire, the keys with a live holder, and every row of a key prefix. Meant for the seams kit's
 * leftover hook ("immortal records", "records left at all").
 */
public final class JdbcStoreInspector {

	private final DataSource dataSource;

	private final JdbcDialect dialect;

	private final String table;

	public JdbcStoreInspector(DataSource dataSource, JdbcDialect dialect, String table) {
		this.dataSource = dataSource;
		this.dialect = dialect;
		this.table = table;
	}

	/** Keys under the prefix held by a lock without expiry (a row with no TTL whose holder is live). */
	public List<String> immortal(String prefix) {
		return keys("ttl_ms IS NULL AND expires_at > " + now() + " AND (holder <> '' OR token IS NOT NULL)", prefix);
	}

	/** Keys under the prefix whose holder's lease (key row or shared row) runs more than a year from now. */
	public List<String> heldForYears(String prefix) {
		String yearOn = dialect == JdbcDialect.POSTGRESQL ? "clock_timestamp() + INTERVAL '366 days'"
				: "UTC_TIMESTAMP(6) + INTERVAL 366 DAY";
		return keys("expires_at > " + yearOn + " AND (holder <> '' OR token IS NOT NULL)", prefix);
	}

	/** Keys under the prefix that anyone holds now, exclusive or shared. */
	public List<String> held(String prefix) {
		return keys("expires_at > " + now() + " AND (holder <> '' OR token IS NOT NULL)", prefix);
	}

	/**
	 * Every row under the prefix, as {@code key/holder}: a plain exclusive lock's release deletes its key row; other
	 * released rows and expired rows stay until the purger deletes them (they carry the release marks that replayed
	 * releases read).
	 */
	public List<String> rows(String prefix) {
		List<String> rows = new ArrayList<>();
		query("SELECT lock_key, holder FROM " + rows() + " WHERE lock_key LIKE ? ORDER BY lock_key, holder", prefix,
				rs -> rows.add(rs.getString(1) + "/" + rs.getString(2)));
		return rows;
	}

	/** Every record of the lock-ID table under the key prefix, as {@code lockId/key/holder}. */
	public List<String> lockIdRecords(String prefix) {
		List<String> records = new ArrayList<>();
		query("SELECT lock_id, lock_key, holder FROM " + table + "_ids WHERE lock_key LIKE ? ORDER BY lock_id, lock_key, "
				+ "holder", prefix, rs -> records.add(rs.getString(1) + "/" + rs.getString(2) + "/" + rs.getString(3)));
		return records;
	}

	/**
	 * Both kinds of row, as one table: the key rows (holder empty) and the shared holders' rows of
	 * {@code <table>_shared}.
	 */
	private String rows() {
		String columns = "token, ttl_ms, expires_at";
		return "(SELECT lock_key, '' AS holder, " + columns + " FROM " + table + " UNION ALL SELECT lock_key, holder, "
				+ columns + " FROM " + table + "_shared) r";
	}

	private String now() {
		return dialect == JdbcDialect.POSTGRESQL ? "clock_timestamp()" : "UTC_TIMESTAMP(6)";
	}

	private List<String> keys(String condition, String prefix) {
		List<String> keys = new ArrayList<>();
		query("SELECT DISTINCT lock_key FROM " + rows() + " WHERE lock_key LIKE ? AND " + condition
				+ " ORDER BY lock_key", prefix, rs -> keys.add(rs.getString(1)));
		return keys;
	}

	private interface RowConsumer {

		void accept(ResultSet rs) throws SQLException;

	}

	private void query(String sql, String prefix, RowConsumer consumer) {
		String like = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%";
		try (Connection connection = dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement(sql)) {
			statement.setString(1, like);
			try (ResultSet rs = statement.executeQuery()) {
				while (rs.next()) {
					consumer.accept(rs);
				}
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(sql, ex);
		}
	}

}
