package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The one place that touches the PostgreSQL driver's API (an optional dependency), so applications on MySQL/MariaDB
 * never load it.
 */
final class PostgresNotifications {

	private PostgresNotifications() {
	}

	/** Blocks up to {@code millis} for notifications on the LISTEN connection and returns their payloads (keys). */
	static List<String> poll(Connection connection, int millis) throws SQLException {
		PGNotification[] notifications = connection.unwrap(PGConnection.class).getNotifications(millis);
		if (notifications == null || notifications.length == 0) {
			return List.of();
		}
		String[] keys = new String[notifications.length];
		for (int i = 0; i < notifications.length; i++) {
			keys[i] = notifications[i].getParameter();
		}
		return List.of(keys);
	}

}
