package dev.distlock.jdbc;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

/**
 * Wakes the waiters of this provider when a key they wait for is released. Releases made here wake them directly. On
 * PostgreSQL every release also sends a NOTIFY on the table's channel (delivered on commit), and the one LISTEN
 * connection of this JVM on the provider's DataSource ({@link PostgresListener}, shared by every provider on it),
 * joined when this provider's first waiter arrives, fans the notifications out, so releases made by other providers and
 * other JVMs wake waiters too. A release that finds a live waiting writer's mark on the key's row names that writer:
 * only it is woken, the others wake at their own timers (the template's backoff, the holder's lease end, the end of the
 * notifications for their mark); on PostgreSQL a writer marks only a row without another writer's live mark, so the
 * named writer stays named until its grant, and the others mark once no live writer mark is left; a release that finds
 * no such mark wakes every waiter of the key. Each waiter tells the LISTEN connection whether it needs notifications
 * ({@link Waiter#listens}): a writer that knows another is named does not, nor does the named writer while the key
 * cycles faster than a notification reaches it ({@link JdbcAcquisition#CYCLING_STEP}), and a connection nobody needs does not
 * listen, since PostgreSQL signals every listening backend on each notifying commit.
 * On PostgreSQL a writer's mark is its {@link Waiter#mark()}: the owner token behind the LISTEN connection's tag, so
 * a release naming it notifies that connection's own channel and no other JVM's ({@link PostgresListener}).
 * MySQL/MariaDB have no notifications: there, waiters from other JVMs wake at the holder's remaining lease or at the
 * template's backoff. When the LISTEN connection breaks, every waiter is woken (a release may have been missed) and it
 * is opened again.
 */
final class Wakeups implements AutoCloseable {

	/**
	 * The longest owner token a mark carries behind a tag: the row's {@code waiter} column holds 64 characters. A
	 * longer one is its own mark, named on the table's channel.
	 */
	static final int MAX_TAGGED_TOKEN = 64 - PostgresListener.TAG_LENGTH - 1;

	private final Map<String, Set<Waiter>> waiters = new ConcurrentHashMap<>();

	private final @Nullable DataSource listenOn;

	private final String channel;

	private boolean closed;

	private @Nullable PostgresListener listener;

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

		private final String mark;

		private final Semaphore signal = new Semaphore(0);

		/** The LISTEN connection this waiter counts on, or null where nothing notifies. */
		private final @Nullable PostgresListener listener;

		/** Whether this waiter counts among those the LISTEN connection listens for; guarded by this. */
		private boolean needing;

		/**
		 * The LISTEN connection's {@link PostgresListener#stamp()} when this waiter last began statements while not
		 * counting itself in ({@link #beforeStatements()}), or at its registration; guarded by this.
		 */
		private long stampBefore;

		private Waiter(String key, String mark, @Nullable PostgresListener listener) {
			this.key = key;
			this.mark = mark;
			this.listener = listener;
			this.stampBefore = listener != null ? listener.stamp() : 0;
		}

		/**
		 * Called before an attempt's statements, which may leave this waiter named on the key's row while it does
		 * not count itself in: a release naming it then reaches this JVM only while the LISTEN connection listens
		 * ({@link #listens(boolean)}).
		 */
		synchronized void beforeStatements() {
			if (listener != null && !needing) {
				stampBefore = listener.stamp();
			}
		}

		/**
		 * Whether releases may name this waiter or wake it with every waiter of its key, so this JVM's LISTEN
		 * connection must listen ({@link PostgresListener#need()}): a reader from its registration; a writer once a
		 * statement found its own live mark on the key's row, except while the key cycles ({@link JdbcAcquisition}).
		 * A waiter that counts itself in again is woken once the LISTEN has taken effect, or at once when the
		 * connection already listens but did not listen throughout since {@link #beforeStatements()}: a release
		 * that named it meanwhile may have gone unheard.
		 */
		synchronized boolean listens() {
			return needing;
		}

		synchronized void listens(boolean needed) {
			if (listener == null || needing == needed) {
				return;
			}
			needing = needed;
			if (needed) {
				listener.need();
				long now = listener.stamp();
				if ((now & 1) == 1 && now != stampBefore) {
					// The connection listens, but not throughout: another waiter's count started its LISTEN, whose
					// wake-up came before this count, or it stopped and started again. Not listening now, the LISTEN
					// this count starts wakes it.
					signal.release();
				}
			}
			else {
				listener.unneed();
			}
		}

		/**
		 * What this waiter writes on the key's row as a waiting writer, and what a release naming it names: on
		 * PostgreSQL {@code tag.token}, the tag of this JVM's LISTEN connection on the DataSource before the owner
		 * token; the owner token alone on MySQL/MariaDB (no notifications), and for a token longer than
		 * {@link #MAX_TAGGED_TOKEN}.
		 */
		String mark() {
			return mark;
		}

		/**
		 * Waits for a wake-up up to {@code max}; true if one came. Wake-ups since the last wait count at once, and so
		 * does one that comes as the wait times out (the drain takes it: a wake-up thrown away would cost the waiter its
		 * next retry delay).
		 */
		boolean await(Duration max) throws InterruptedException {
			boolean woken = signal.tryAcquire(Math.max(0, max.toNanos()), TimeUnit.NANOSECONDS);
			return signal.drainPermits() > 0 || woken;
		}

		private void wake() {
			signal.release();
		}

		@Override
		public void close() {
			listens(false);
			waiters.computeIfPresent(key, (k, set) -> {
				set.remove(this);
				return set.isEmpty() ? null : set;
			});
		}

	}

	/**
	 * Registers a waiter with its owner token before its first attempt, so no release between the attempt and the wait
	 * is missed.
	 */
	Waiter register(String key, String token) {
		return register(key, token, true);
	}

	/**
	 * {@link #register(String, String)}, counting the waiter among those the LISTEN connection listens for only when
	 * {@code listens}: a writer counts itself in once its mark is written ({@link Waiter#listens(boolean)}); a release
	 * between the mark and the LISTEN is covered by the wake-up after the LISTEN.
	 */
	Waiter register(String key, String token, boolean listens) {
		PostgresListener joined;
		String mark;
		synchronized (this) {
			mark = joinAndMark(token);
			joined = listener;
		}
		Waiter waiter = new Waiter(key, mark, joined);
		waiters.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(waiter);
		waiter.listens(listens); // in the map first: the wake-up after the LISTEN reaches it
		return waiter;
	}

	/** Wakes the waiters of the key. */
	void wake(String key) {
		wake(key, null);
	}

	/**
	 * Wakes the waiter of the key with the mark ({@link Waiter#mark()}), if it waits here; every waiter of the key when
	 * the mark is null.
	 */
	void wake(String key, @Nullable String mark) {
		Set<Waiter> set = waiters.get(key);
		if (set == null) {
			return;
		}
		for (Waiter waiter : set) {
			if (mark == null || mark.equals(waiter.mark)) {
				waiter.wake();
			}
		}
	}

	/**
	 * Wakes every waiter that counts on notifications (the LISTEN connection listens again: a release may have gone
	 * unseen); the others wake at their own timers, as they do anyway.
	 */
	void wakeListening() {
		waiters.values().forEach(set -> set.forEach(waiter -> {
			if (waiter.listens()) {
				waiter.wake();
			}
		}));
	}

	/** Wakes every waiter (the LISTEN connection opened or broke: a release may have gone unseen). */
	void wakeAll() {
		waiters.values().forEach(set -> set.forEach(Waiter::wake));
	}

	/** How many waiters of the key are registered (tests). */
	int waiting(String key) {
		Set<Waiter> set = waiters.get(key);
		return set != null ? set.size() : 0;
	}

	/** The tag of the LISTEN connection this provider joined, or null before it joined one (tests). */
	synchronized @Nullable String tag() {
		return listener != null ? listener.tag() : null;
	}

	/** The LISTEN connection this provider joined, or null before it joined one (tests). */
	synchronized @Nullable PostgresListener listener() {
		return listener;
	}

	/** Whether this provider has joined the LISTEN connection of its DataSource. */
	synchronized boolean listening() {
		return listener != null;
	}

	/** Joins the DataSource's LISTEN connection if not yet joined; returns the mark of a waiter with the token. */
	private synchronized String joinAndMark(String token) {
		if (listenOn != null && listener == null && !closed) {
			listener = PostgresListener.join(listenOn, channel, this);
		}
		return listener != null && token.length() <= MAX_TAGGED_TOKEN ? PostgresListener.mark(listener.tag(), token) : token;
	}

	@Override
	public void close() {
		PostgresListener left;
		synchronized (this) {
			closed = true;
			left = listener;
			listener = null;
		}
		if (left != null) {
			left.leave(channel, this);
		}
		wakeAll();
	}

}
