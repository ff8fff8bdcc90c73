package dev.distlock.redis;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.distlock.core.LockStoreException;
import dev.distlock.core.spi.ReleaseNotifier;

/**
 * Release signals for waiters: one shared pub/sub connection per provider, opened on the first watch, with one
 * reference-counted subscription per watched channel. A channel nobody watches stays subscribed for a linger period,
 * so a key that is contended again and again is not re-subscribed (a round trip) and unsubscribed per wait; a sweep on
 * the Lettuce client's own event executor unsubscribes channels idle longer than that. Every watch is also bounded by
 * the remaining lease the last refused attempt reported, so a holder that dies without releasing wakes its waiters
 * when its lease runs out. Without a connection supplier (pub/sub off, or a non-Lettuce factory) watches only apply
 * that bound: polling.
 * <p>A watch for a queued acquisition (see {@link HandOff}) also holds a reference on this client's grant channel, where
 * a release that hands the lock over names the waiter's owner token; such a message wakes that waiter alone.
 */
final class ReleaseSignals implements ReleaseNotifier, AutoCloseable {

	private static final Log logger = LogFactory.getLog(ReleaseSignals.class);

	/** How long a channel nobody watches stays subscribed. */
	static final Duration LINGER = Duration.ofSeconds(1);

	private final RedisKeys keys;

	private final @Nullable Supplier<StatefulRedisPubSubConnection<String, String>> connector;

	private final Duration timeout;

	private final Object lock = new Object();

	/** Watched channels; guarded by {@link #lock}, read without it by the listener. */
	private final Map<String, Channel> channels = new ConcurrentHashMap<>();

	/** Lock key to channel, for expiry hints; same lifetime as the entries of {@link #channels}. */
	private final Map<String, Channel> byKey = new HashMap<>();

	/** Watches of queued acquisitions, by owner token, so a grant wakes only its own waiter. */
	private final Map<String, Signal> handOffs = new ConcurrentHashMap<>();

	/** This client's grant channel, subscribed (by reference, lingering like the others) while it has queued waiters. */
	private final String grantChannel;

	private @Nullable StatefulRedisPubSubConnection<String, String> connection;

	private @Nullable ScheduledFuture<?> sweeper;

	private boolean closed;

	ReleaseSignals(RedisKeys keys, @Nullable Supplier<StatefulRedisPubSubConnection<String, String>> connector,
			Duration timeout) {
		this.keys = keys;
		this.connector = connector;
		this.timeout = timeout;
		this.grantChannel = keys.grantChannel(UUID.randomUUID().toString());
	}

	@Override
	public Watch watch(String key) {
		return watch(key, null, null);
	}

	/**
	 * Whether the key's channel and this client's grant channel are subscribed now (watched or lingering), so a new
	 * watch costs no round trip.
	 */
	boolean isSubscribed(String key) {
		return subscribed(channels.get(keys.channel(key))) && subscribed(channels.get(grantChannel));
	}

	private static boolean subscribed(@Nullable Channel channel) {
		RedisFuture<Void> subscribed = channel != null ? channel.subscribed : null;
		return subscribed != null && subscribed.isDone() && !failed(subscribed);
	}

	/**
	 * Whether releases can hand locks to queued waiters: only when grants can reach them over pub/sub.
	 */
	boolean handsOff() {
		return connector != null;
	}

	/**
	 * The queue place of a watching acquisition, or null when the token is not waiting here.
	 */
	@Nullable HandOff handOff(String token) {
		Signal signal = handOffs.get(token);
		return signal != null ? signal.handOff : null;
	}

	/**
	 * Watches the key for one acquisition that joins the key's waiter queue: a grant naming its token wakes it alone.
	 * Closing the watch runs {@code cancel} when the acquisition queued but did not take the lock.
	 */
	Watch watch(String key, @Nullable HandOff handOff, @Nullable Runnable cancel) {
		Channel channel;
		Channel grants = null;
		synchronized (lock) {
			if (closed) {
				throw new LockStoreException(key, "Redis lock provider is closed; cannot watch '" + key + "'", null);
			}
			channel = reference(keys.channel(key), key);
			if (handOff != null) {
				grants = reference(grantChannel, null);
			}
		}
		Signal signal = new Signal(channel, grants, handOff, cancel);
		channel.signals.add(signal);
		if (handOff != null) {
			handOffs.put(handOff.token(), signal);
		}
		awaitSubscribed(key, channel.subscribed, signal);
		if (grants != null) {
			awaitSubscribed(key, grants.subscribed, signal);
		}
		return signal;
	}

	/**
	 * The channel this client's grants arrive on; queue entries name it, so a release wakes only the waiter's client.
	 */
	String grantChannel() {
		return grantChannel;
	}

	/**
	 * Takes a reference on a channel, subscribing it unless it is subscribed or lingering; call with {@link #lock}
	 * held. Commands on one connection run in order, so a SUBSCRIBE lands after any earlier UNSUBSCRIBE.
	 * @param key the lock key whose releases the channel carries, or null for this client's grant channel
	 */
	private Channel reference(String name, @Nullable String key) {
		Channel channel = channels.get(name);
		if (channel != null && channel.references == 0 && failed(channel.subscribed)) {
			forget(channel); // an idle channel whose SUBSCRIBE failed: subscribe afresh
			channel = null;
		}
		if (channel == null) {
			channel = new Channel(name, key);
			if (connector != null) {
				try {
					channel.subscribed = connection().async().subscribe(name);
				}
				catch (RuntimeException ex) {
					throw new LockStoreException(key, "Could not open the release-signal connection"
							+ (key != null ? " for '" + key + "'" : ""), ex);
				}
			}
			channels.put(name, channel);
			if (key != null) {
				byKey.put(key, channel);
			}
		}
		channel.references++;
		return channel;
	}

	/**
	 * Records the remaining lease a refused attempt reported for a watched key; ignored for keys nobody watches.
	 */
	void hint(String key, long remainingMillis) {
		Channel channel;
		synchronized (lock) {
			channel = byKey.get(key);
		}
		if (channel != null) {
			channel.expiresAtNanos = remainingMillis > 0
					? System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(remainingMillis) : 0;
		}
	}

	/**
	 * How many channels someone watches now; for tests and diagnostics.
	 */
	int watchedChannels() {
		synchronized (lock) {
			return (int) channels.values().stream().filter(channel -> channel.references > 0).count();
		}
	}

	/**
	 * How many channels are subscribed now, watched or lingering; for tests and diagnostics.
	 */
	int subscribedChannels() {
		return channels.size();
	}

	/**
	 * Unsubscribes every channel nobody has watched for at least {@code idle}; the sweep calls it with the linger.
	 */
	void unsubscribeIdle(Duration idle) {
		long now = System.nanoTime();
		synchronized (lock) {
			for (Channel channel : List.copyOf(channels.values())) {
				if (channel.references == 0 && now - channel.idleSinceNanos >= idle.toNanos()) {
					forget(channel);
				}
			}
		}
	}

	@Override
	public void close() {
		StatefulRedisPubSubConnection<String, String> open;
		synchronized (lock) {
			closed = true;
			open = connection;
			connection = null;
			if (sweeper != null) {
				sweeper.cancel(false);
				sweeper = null;
			}
			channels.values().forEach(channel -> channel.signals.forEach(signal -> signal.permits.release()));
			channels.clear();
			byKey.clear();
			handOffs.clear();
		}
		if (open != null) {
			open.closeAsync();
		}
	}

	private StatefulRedisPubSubConnection<String, String> connection() {
		if (connection == null) {
			StatefulRedisPubSubConnection<String, String> opened = connector.get();
			opened.addListener(new RedisPubSubAdapter<>() {
				@Override
				public void message(String channelName, String message) {
					if (message.startsWith("g ")) {
						granted(message);
						return;
					}
					Channel channel = channels.get(channelName);
					if (channel != null) {
						channel.signals.forEach(signal -> signal.permits.release());
					}
				}
			});
			connection = opened;
			long period = LINGER.toMillis() / 2;
			sweeper = opened.getResources().eventExecutorGroup().scheduleWithFixedDelay(this::sweep, period, period,
					TimeUnit.MILLISECONDS);
			logger.debug("Opened the release-signal subscription connection");
		}
		return connection;
	}

	/**
	 * A release handed the lock to a queued waiter of this client: {@code g <token> <fencing token> <attempt>}, on this
	 * client's grant channel. Only that waiter wakes; no other client hears of it, and nobody could take the lock now.
	 */
	private void granted(String message) {
		String[] parts = message.split(" ");
		if (parts.length != 4) {
			logger.warn("Ignoring a malformed hand-off message on a release channel");
			return;
		}
		Signal signal = handOffs.get(parts[1]);
		if (signal != null && signal.handOff != null
				&& signal.handOff.granted(Long.parseLong(parts[2]), Integer.parseInt(parts[3]))) {
			signal.permits.release();
		}
	}

	private void awaitSubscribed(String key, @Nullable RedisFuture<Void> subscribed, Signal signal) {
		if (subscribed == null) {
			return; // polling: nothing to wait for
		}
		try {
			subscribed.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			signal.close();
			Thread.currentThread().interrupt();
			throw new LockStoreException(key, "Interrupted while subscribing to releases of '" + key + "'", ex);
		}
		catch (Exception ex) {
			signal.close();
			throw new LockStoreException(key, "Could not subscribe to releases of '" + key + "'", ex);
		}
	}

	private void sweep() {
		try {
			unsubscribeIdle(LINGER);
		}
		catch (RuntimeException ex) { // a thrown exception would cancel the periodic sweep
			logger.debug("Release-signal sweep failed: " + ex.getMessage());
		}
	}

	private void unwatch(Signal signal) {
		signal.channel.signals.remove(signal);
		synchronized (lock) {
			dereference(signal.channel);
			if (signal.grants != null) {
				dereference(signal.grants);
			}
		}
	}

	/**
	 * Drops a reference; a channel nobody watches lingers until the sweep, unless there is nothing worth keeping.
	 */
	private void dereference(Channel channel) {
		if (--channel.references > 0 || channels.get(channel.name) != channel) {
			return;
		}
		if (channel.subscribed == null || failed(channel.subscribed)) {
			forget(channel); // polling, or a SUBSCRIBE that failed
		}
		else {
			channel.idleSinceNanos = System.nanoTime();
		}
	}

	/**
	 * Drops a channel and unsubscribes it; call with {@link #lock} held, so the UNSUBSCRIBE is ordered with the
	 * SUBSCRIBE of a later watch on the same connection.
	 */
	private void forget(Channel channel) {
		channels.remove(channel.name);
		if (channel.key != null) {
			byKey.remove(channel.key);
		}
		if (connection != null && channel.subscribed != null) {
			connection.async().unsubscribe(channel.name);
		}
	}

	private static boolean failed(@Nullable RedisFuture<Void> subscribed) {
		return subscribed != null && subscribed.toCompletableFuture().isCompletedExceptionally();
	}

	private static final class Channel {

		private final String name;

		private final @Nullable String key;

		private final Set<Signal> signals = ConcurrentHashMap.newKeySet();

		private int references;

		private long idleSinceNanos;

		private @Nullable RedisFuture<Void> subscribed;

		private volatile long expiresAtNanos;

		Channel(String name, @Nullable String key) {
			this.name = name;
			this.key = key;
		}

	}

	private final class Signal implements Watch {

		private final Channel channel;

		private final Semaphore permits = new Semaphore(0);

		private final @Nullable Channel grants;

		private final @Nullable HandOff handOff;

		private final @Nullable Runnable cancel;

		private boolean closed;

		Signal(Channel channel, @Nullable Channel grants, @Nullable HandOff handOff, @Nullable Runnable cancel) {
			this.channel = channel;
			this.grants = grants;
			this.handOff = handOff;
			this.cancel = cancel;
		}

		@Override
		public boolean await(Duration max) throws InterruptedException {
			long wait = max.toNanos();
			long expiresAt = channel.expiresAtNanos;
			if (expiresAt != 0) {
				// The holder's lease runs out before the backoff would end: wake then (plus 1 ms for rounding).
				long untilExpiry = expiresAt - System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1);
				wait = Math.max(0, Math.min(wait, untilExpiry));
			}
			return permits.tryAcquire(wait, TimeUnit.NANOSECONDS);
		}

		@Override
		public synchronized void close() {
			if (closed) {
				return;
			}
			closed = true;
			if (handOff != null) {
				// Unregister first: a grant arriving from now on is left to the cancel script, which passes it on.
				handOffs.remove(handOff.token(), this);
				if (cancel != null && handOff.needsCancel()) {
					cancel.run();
				}
			}
			unwatch(this);
		}

	}

}
