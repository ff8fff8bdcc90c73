package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
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

	/** One notification: the channel (a lock table's name) and the payload (the released key). */
	record Notification(String channel, String key) {
	}

	/** Blocks up to {@code millis} for notifications on the LISTEN connection and returns them. */
	static List<Notification> poll(Connection connection, int millis) throws SQLException {
		PGNotification[] notifications = connection.unwrap(PGConnection.class).getNotifications(millis);
		if (notifications == null || notifications.length == 0) {
			return List.of();
		}
		List<Notification> received = new ArrayList<>(notifications.length);
		for (PGNotification notification : notifications) {
			received.add(new Notification(notification.getName(), notification.getParameter()));
		}
		return received;
	}

}
