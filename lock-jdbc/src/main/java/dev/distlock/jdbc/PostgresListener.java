package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The one LISTEN connection of this JVM on a DataSource, shared by every provider on that DataSource: each provider's
 * {@link Wakeups} joins it (on its table's channel) when its first waiter arrives and leaves it when the provider
 * closes; the connection is opened by the first to join and closed, after {@code UNLISTEN *}, when the last leaves.
 * It listens to each joined table's channel, which carries releases that wake every waiter of a key, and to the
 * table's channel of this listener alone ({@link #namedChannel}), which carries releases naming a waiting writer of
 * this JVM: a waiting writer's mark on a row carries this listener's {@link #tag()} ({@link Wakeups}), and a release
 * that names it notifies only that channel, so the other JVMs' listeners are not woken by a notification none of their
 * waiters would act on (every listening backend is still signalled by PostgreSQL 15, but only this one forwards it).
 * Notifications are fanned out to the {@link Wakeups} of their channel: one that names a waiter wakes only that waiter,
 * in whichever of them it waits (if in this JVM at all), one with the key alone every waiter of the key. When the
 * connection breaks, every joined {@link Wakeups} wakes all its waiters (a release may have been missed) and the
 * connection is opened again; a channel joined while the connection is open is listened to within one poll, and its
 * waiters are then woken once. It listens only while a waiter of this JVM {@link #need() needs} it: PostgreSQL 15
 * signals every listening backend of the database on each commit that notifies, and each wakes to read the queue, so
 * a JVM whose waiters are all writers that another writer is named before UNLISTENs its channels and waits, its
 * connection still borrowed; the next waiter that needs it makes it LISTEN again and then wakes the waiters that
 * need it.
 */
final class PostgresListener {

	private static final Log logger = LogFactory.getLog(PostgresListener.class);

	/** How long one poll for notifications blocks; also how soon a new channel is listened to or a stop is seen. */
	static final int POLL_MILLIS = 250;

	/** The shortest poll: while waiters start and stop needing notifications, how soon the connection stops listening. */
	static final int MIN_POLL_MILLIS = 5;

	/** The listener of each DataSource (by identity) that has at least one member; guarded by itself. */
	private static final Map<DataSource, PostgresListener> listeners = new IdentityHashMap<>();

	/** The characters of a {@link #tag()}: the channel it ends stays a plain lower-case identifier. */
	private static final char[] TAG_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789".toCharArray();

	/** How long a {@link #tag()} is: the release statements read it as the first this many characters of a mark. */
	static final int TAG_LENGTH = 8;

	private final DataSource dataSource;

	/** This listener's own, drawn at random: the end of its named channels. */
	private final String tag;

	/** The members per channel; the listener thread LISTENs to exactly these channels. */
	private final Map<String, Set<Wakeups>> members = new ConcurrentHashMap<>();

	/** Members, counted per join; guarded by {@link #listeners}. */
	private int joined;

	private volatile boolean stopped;

	/** Guards {@link #needing} and {@link #needChanges}; the listener thread waits on it while nothing needs it. */
	private final Object needs = new Object();

	/** Waiters of this JVM that may be named by a release or wait to be woken with every waiter of their key. */
	private int needing;

	/** Counts every {@link #need()} and {@link #unneed()}: the listener polls briefly while it moves. */
	private long needChanges;

	/**
	 * Odd while the connection listens to the joined channels, even while it does not: raised by one when it starts or stops listening, and
	 * by two when it starts listening to one more channel. Two equal odd stamps mean it listened to every channel
	 * throughout ({@link Wakeups.Waiter#listens(boolean)}). Written by the listener thread alone.
	 */
	private volatile long stamp;

	private PostgresListener(DataSource dataSource) {
		this.dataSource = dataSource;
		java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
		char[] drawn = new char[TAG_LENGTH];
		for (int i = 0; i < drawn.length; i++) {
			drawn[i] = TAG_CHARS[random.nextInt(TAG_CHARS.length)];
		}
		this.tag = new String(drawn);
	}

	/**
	 * What a waiting writer's mark starts with ({@link Wakeups}) so that a release naming it notifies this listener's
	 * {@link #namedChannel} only: {@link #TAG_LENGTH} lower-case letters and digits, unique among the listeners on a
	 * database with near certainty (36^8 values; two alike would each receive the other's named notifications and
	 * ignore those naming no waiter of theirs, as every listener does without tags).
	 */
	String tag() {
		return tag;
	}

	/** The channel of releases that name a waiting writer of this listener, for a table's channel. */
	static String namedChannel(String channel, String tag) {
		return channel + "_" + tag;
	}

	/**
	 * A waiting writer's mark with a listener's tag: {@code tag.token}. The release statements read the tag back as
	 * the first {@link #TAG_LENGTH} characters when the next one is the {@code .} ({@link LockStatements}).
	 */
	static String mark(String tag, String token) {
		return tag + "." + token;
	}

	/** Adds the member on the channel to the DataSource's listener, opening it if it is the first. */
	static PostgresListener join(DataSource dataSource, String channel, Wakeups member) {
		synchronized (listeners) {
			PostgresListener listener = listeners.get(dataSource);
			if (listener == null) {
				listener = new PostgresListener(dataSource);
				listeners.put(dataSource, listener);
				Thread thread = new Thread(listener::listen, "distlock-jdbc-listen");
				thread.setDaemon(true);
				thread.start();
			}
			listener.members.computeIfAbsent(channel, c -> ConcurrentHashMap.newKeySet()).add(member);
			listener.joined++;
			return listener;
		}
	}

	/** Removes the member; the last to leave stops the listener, which closes its connection within one poll. */
	void leave(String channel, Wakeups member) {
		synchronized (listeners) {
			Set<Wakeups> set = members.get(channel);
			if (set == null || !set.remove(member)) {
				return;
			}
			if (set.isEmpty()) {
				members.remove(channel);
			}
			if (--joined == 0) {
				stopped = true;
				listeners.remove(dataSource);
			}
		}
	}

	/** How many listeners (LISTEN connections, open or being opened) this JVM has: one per DataSource in use. */
	static int count() {
		synchronized (listeners) {
			return listeners.size();
		}
	}

	/**
	 * A waiter of this JVM may be named by a release, or waits to be woken with every waiter of its key: the
	 * connection must listen. The first makes it LISTEN (to every joined channel) and wakes every waiter once the LISTEN
	 * has taken effect, since releases before it are unknown.
	 */
	void need() {
		synchronized (needs) {
			needChanges++;
			if (needing++ == 0) {
				needs.notifyAll();
			}
		}
	}

	/** A waiter that {@link #need() needed} notifications needs them no more. */
	void unneed() {
		synchronized (needs) {
			needChanges++;
			needing--;
		}
	}

	/** How many waiters need notifications (tests). */
	int needing() {
		synchronized (needs) {
			return needing;
		}
	}

	/** Whether the connection listens to the joined channels now: while its {@link #stamp} is odd. */
	boolean listening() {
		return (stamp & 1) == 1;
	}

	/** The connection's {@link #stamp}: odd while it listens, changed by every change of what it listens to. */
	long stamp() {
		return stamp;
	}

	/** The connection stopped listening (the listener thread only). */
	private void stopped() {
		if (listening()) {
			stamp++;
		}
	}

	private void listen() {
		long backoff = 100;
		while (!stopped) {
			try (Connection connection = dataSource.getConnection()) {
				connection.setAutoCommit(true);
				Set<String> listening = new HashSet<>();
				backoff = 100;
				try {
					int slice = POLL_MILLIS;
					long seen = -1;
					while (!stopped) {
						long changes;
						boolean needed;
						synchronized (needs) {
							if (needing == 0 && listening.isEmpty()) {
								// Nothing to hear: a backend that listens is signalled on every notifying commit.
								needs.wait(POLL_MILLIS);
								continue;
							}
							changes = needChanges;
							needed = needing > 0;
						}
						if (!needed) {
							unlistenAll(connection, listening);
							continue;
						}
						follow(connection, listening);
						// Short polls while waiters come and go, so the connection stops listening soon after the
						// last one that needed it; longer ones while nothing changes.
						slice = changes != seen ? MIN_POLL_MILLIS : Math.min(POLL_MILLIS, slice * 2);
						seen = changes;
						for (PostgresNotifications.Notification notification : PostgresNotifications.poll(connection,
								slice)) {
							Set<Wakeups> set = members.get(memberChannel(notification.channel()));
							if (set != null) {
								set.forEach(wakeups -> wakeups.wake(notification.key(), notification.token()));
							}
						}
					}
				}
				finally {
					stopped();
					unlistenQuietly(connection);
				}
			}
			catch (SQLException | RuntimeException ex) {
				if (stopped) {
					return;
				}
				logger.debug("The LISTEN connection failed; opening it again", ex);
				members.values().forEach(set -> set.forEach(Wakeups::wakeAll));
				try {
					Thread.sleep(backoff);
				}
				catch (InterruptedException interrupted) {
					return;
				}
				backoff = Math.min(backoff * 2, 5_000);
			}
			catch (InterruptedException interrupted) {
				return;
			}
		}
	}

	/**
	 * Stops listening to every channel, one by one: with none left the backend leaves PostgreSQL's listeners, which
	 * every notifying commit in the database signals. The next need listens again and wakes the waiters that count
	 * themselves in ({@link #follow}). (The connection's last statement is then an {@code UNLISTEN} of a channel;
	 * {@code UNLISTEN *} is its last only once it goes back to the pool.)
	 */
	private void unlistenAll(Connection connection, Set<String> listening) throws SQLException {
		stopped();
		for (String channel : listening) {
			execute(connection, "UNLISTEN " + channel);
			execute(connection, "UNLISTEN " + namedChannel(channel, tag));
		}
		listening.clear();
	}

	/** The table's channel a notification came on: its own, or this listener's named channel of it. */
	private String memberChannel(String channel) {
		String suffix = namedChannel("", tag);
		return channel.endsWith(suffix) ? channel.substring(0, channel.length() - suffix.length()) : channel;
	}

	/**
	 * LISTENs to the channels joined since the last poll, each with its named channel, then wakes their waiters
	 * (releases before the LISTEN are unknown: every waiter tries again), and UNLISTENs the channels every member left.
	 */
	private void follow(Connection connection, Set<String> listening) throws SQLException {
		for (String channel : members.keySet()) {
			if (!listening.contains(channel)) {
				execute(connection, "LISTEN " + channel);
				execute(connection, "LISTEN " + namedChannel(channel, tag));
				listening.add(channel);
				stamp += listening() ? 2 : 1;
				Set<Wakeups> set = members.get(channel);
				if (set != null) {
					set.forEach(Wakeups::wakeListening);
				}
			}
		}
		for (var it = listening.iterator(); it.hasNext();) {
			String channel = it.next();
			if (!members.containsKey(channel)) {
				execute(connection, "UNLISTEN " + channel);
				execute(connection, "UNLISTEN " + namedChannel(channel, tag));
				it.remove();
			}
		}
	}

	/**
	 * The connection goes back to the pool listening to nothing, or pgjdbc would queue notifications on it; sent even
	 * when nothing is listened to now, so {@code UNLISTEN *} is always its last statement.
	 */
	private static void unlistenQuietly(Connection connection) {
		try {
			execute(connection, "UNLISTEN *");
		}
		catch (SQLException | RuntimeException ex) {
			logger.debug("Could not UNLISTEN before returning the LISTEN connection", ex);
		}
	}

	private static void execute(Connection connection, String sql) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			statement.setQueryTimeout((int) TimeLimits.ADMIN.toSeconds());
			statement.execute(sql);
		}
	}

}
