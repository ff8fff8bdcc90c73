package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The one place that touches the PostgreSQL driver's API (an optional dependency), so applications on MySQL/MariaDB
 * never load it.
 */
final class PostgresNotifications {

	/**
	 * Separates the named waiter's owner token from the key in a named notification's payload (U+001F, the unit
	 * separator). Keys never contain control characters and tokens are base64url, so a payload holding it is never a
	 * key, and its first one ends the token.
	 */
	static final char NAMED = '\u001F';

	private PostgresNotifications() {
	}

	/**
	 * One notification: the channel (a lock table's name), the released key and, when the release named the waiting
	 * writer recorded on the key's row, that writer's owner token; null when the release wakes every waiter of the key.
	 */
	record Notification(String channel, String key, @Nullable String token) {

		/** Reads a payload: {@code token U+001F key} names a waiter, anything else is a key alone. */
		static Notification of(String channel, String payload) {
			int separator = payload.indexOf(NAMED);
			if (separator < 0) {
				return new Notification(channel, payload, null);
			}
			return new Notification(channel, payload.substring(separator + 1), payload.substring(0, separator));
		}

	}

	/** Blocks up to {@code millis} for notifications on the LISTEN connection and returns them. */
	static List<Notification> poll(Connection connection, int millis) throws SQLException {
		PGNotification[] notifications = connection.unwrap(PGConnection.class).getNotifications(millis);
		if (notifications == null || notifications.length == 0) {
			return List.of();
		}
		List<Notification> received = new ArrayList<>(notifications.length);
		for (PGNotification notification : notifications) {
			received.add(Notification.of(notification.getName(), notification.getParameter()));
		}
		return received;
	}

}
