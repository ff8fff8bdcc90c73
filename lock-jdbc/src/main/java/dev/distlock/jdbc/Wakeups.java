package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Wakes the waiters of this provider when a key they wait for is released. Releases made here wake them directly.
 * On PostgreSQL every release also sends a NOTIFY on the table's channel (delivered on commit), and one LISTEN
 * connection per provider, opened when the first waiter arrives, fans the notifications out, so releases made by
 * other JVMs wake waiters too. MySQL/MariaDB have no notifications: there, waiters from other JVMs wake at the
 * holder's remaining lease or at the template's backoff. When the LISTEN connection breaks, every waiter is woken (a
 * release may have been missed) and it is opened again.
 */
final class Wakeups implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(Wakeups.class);

	/** How long one poll for notifications blocks; also how soon the listener sees {@link #close()}. */
	private static final int POLL_MILLIS = 250;

	private final Map<String, Set<Waiter>> waiters = new ConcurrentHashMap<>();

	private final @Nullable DataSource listenOn;

	private final String channel;

	private volatile boolean closed;

	private @Nullable Thread listener;

	/**
	 * @param listenOn the DataSource to LISTEN on (PostgreSQL), or null for local wake-ups only
	 */
	Wakeups(@Nullable DataSource listenOn, String channel) {
		this.listenOn = listenOn;
		this.channel = channel;
	}

	/** One waiter on one key; {@link #close()} removes it. */
	final class Waiter implements AutoCloseable {

		private final String key;

		private final Semaphore signal = new Semaphore(0);

		private Waiter(String key) {
			this.key = key;
		}

		/** Waits for a wake-up up to {@code max}; true if one came. Wake-ups since the last wait count at once. */
		boolean await(Duration max) throws InterruptedException {
			boolean woken = signal.tryAcquire(Math.max(0, max.toNanos()), TimeUnit.NANOSECONDS);
			signal.drainPermits();
			return woken;
		}

		private void wake() {
			signal.release();
		}

		@Override
		public void close() {
			waiters.computeIfPresent(key, (k, set) -> {
				set.remove(this);
				return set.isEmpty() ? null : set;
			});
		}

	}

	/** Registers a waiter before its first attempt, so no release between the attempt and the wait is missed. */
	Waiter register(String key) {
		Waiter waiter = new Waiter(key);
		waiters.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(waiter);
		startListener();
		return waiter;
	}

	/** Wakes the waiters of the key. */
	void wake(String key) {
		Set<Waiter> set = waiters.get(key);
		if (set != null) {
			set.forEach(Waiter::wake);
		}
	}

	private void wakeAll() {
		waiters.values().forEach(set -> set.forEach(Waiter::wake));
	}

	/** Whether a LISTEN connection is open or being opened. */
	boolean listening() {
		return listener != null;
	}

	private synchronized void startListener() {
		if (listenOn == null || listener != null || closed) {
			return;
		}
		Thread thread = new Thread(this::listen, "distlock-jdbc-listen-" + channel);
		thread.setDaemon(true);
		listener = thread;
		thread.start();
	}

	private void listen() {
		long backoff = 100;
		while (!closed) {
			try (Connection connection = listenOn.getConnection()) {
				connection.setAutoCommit(true);
				try (Statement statement = connection.createStatement()) {
					statement.execute("LISTEN " + channel);
				}
				// Releases while no LISTEN was open are unknown: every waiter tries again.
				wakeAll();
				backoff = 100;
				while (!closed) {
					for (String key : PostgresNotifications.poll(connection, POLL_MILLIS)) {
						wake(key);
					}
				}
			}
			catch (SQLException | RuntimeException ex) {
				if (closed) {
					return;
				}
				logger.debug("The LISTEN connection on '" + channel + "' failed; opening it again", ex);
				wakeAll();
				try {
					Thread.sleep(backoff);
				}
				catch (InterruptedException interrupted) {
					return;
				}
				backoff = Math.min(backoff * 2, 5_000);
			}
		}
	}

	@Override
	public void close() {
		closed = true;
		Thread thread;
		synchronized (this) {
			thread = listener;
			listener = null;
		}
		if (thread != null) {
			thread.interrupt();
		}
		wakeAll();
	}

}
