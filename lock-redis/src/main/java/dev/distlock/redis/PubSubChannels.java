package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The pub/sub side of waiting: one shared subscription connection per provider, opened on the first subscription,
 * with one reference-counted subscription per channel. A channel nobody uses stays subscribed for a linger period, so
 * a key that is contended again and again is not re-subscribed (a round trip) and unsubscribed per wait; a sweep on
 * the Lettuce client's own event executor unsubscribes channels idle longer than that. Messages on a key's release
 * channel run that channel's listeners; messages on this client's grant channel go to the grant consumer. Without a
 * connection supplier (pub/sub off, or a non-Lettuce factory) nothing is subscribed.
 */
final class PubSubChannels implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(PubSubChannels.class);

	/** How long a channel nobody uses stays subscribed. */
	static final Duration LINGER = Duration.ofSeconds(1);

	private final RedisKeys keys;

	private final @Nullable Supplier<StatefulRedisPubSubConnection<String, String>> connector;

	private final Consumer<String> grants;

	private final Object lock = new Object();

	/** Subscribed channels; guarded by {@link #lock}, read without it by the listener. */
	private final Map<String, Channel> channels = new ConcurrentHashMap<>();

	/** This client's grant channel, subscribed (by reference, lingering like the others) while it has queued waiters. */
	private final String grantChannel;

	private @Nullable StatefulRedisPubSubConnection<String, String> connection;

	private @Nullable ScheduledFuture<?> sweeper;

	private boolean closed;

	PubSubChannels(RedisKeys keys, @Nullable Supplier<StatefulRedisPubSubConnection<String, String>> connector,
			Consumer<String> grants) {
		this.keys = keys;
		this.connector = connector;
		this.grants = grants;
		this.grantChannel = keys.grantChannel(UUID.randomUUID().toString());
	}

	/**
	 * Whether anything can be subscribed; when not, waiters poll and nobody queues for a hand-off.
	 */
	boolean enabled() {
		return connector != null;
	}

	/**
	 * The channel this client's grants arrive on; queue entries name it, so a release wakes only the waiter's client.
	 */
	String grantChannel() {
		return grantChannel;
	}

	/**
	 * Subscribes to the key's release channel, and to this client's grant channel when asked, by reference.
	 * @param onRelease run on every release message of the key
	 * @throws dev.distlock.core.LockStoreException if the connection cannot be opened or the provider is closed
	 */
	Subscription subscribe(String key, boolean withGrants, Runnable onRelease) {
		Channel channel;
		Channel grantsChannel = null;
		synchronized (lock) {
			if (closed || connector == null) {
				throw new IllegalStateException("Release signals are off or closed");
			}
			channel = reference(keys.of(key).released());
			if (withGrants) {
				grantsChannel = reference(grantChannel);
			}
		}
		channel.listeners.add(onRelease);
		return new Subscription(this, channel, grantsChannel, onRelease);
	}

	/**
	 * Drops a closed subscription's listener and its references on the key's channel and the grant channel.
	 */
	void unsubscribe(Channel channel, @Nullable Channel grantsChannel, Runnable listener) {
		channel.listeners.remove(listener);
		synchronized (lock) {
			dereference(channel);
			if (grantsChannel != null) {
				dereference(grantsChannel);
			}
		}
	}

	/**
	 * Takes a reference on a channel, subscribing it unless it is subscribed or lingering; call with {@link #lock}
	 * held. Commands on one connection run in order, so a SUBSCRIBE lands after any earlier UNSUBSCRIBE.
	 */
	private Channel reference(String name) {
		Channel channel = channels.get(name);
		if (channel != null && channel.references == 0 && failed(channel.subscribed)) {
			forget(channel); // an idle channel whose SUBSCRIBE failed: subscribe afresh
			channel = null;
		}
		if (channel == null) {
			channel = new Channel(name, connection().async().subscribe(name));
			channels.put(name, channel);
		}
		channel.references++;
		return channel;
	}

	/**
	 * How many channels someone uses now; for tests and diagnostics.
	 */
	int watchedChannels() {
		synchronized (lock) {
			return (int) channels.values().stream().filter(channel -> channel.references > 0).count();
		}
	}

	/**
	 * How many channels are subscribed now, used or lingering; for tests and diagnostics.
	 */
	int subscribedChannels() {
		return channels.size();
	}

	/**
	 * Unsubscribes every channel nobody has used for at least {@code idle}; the sweep calls it with the linger.
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
		closeAsync();
	}

	/**
	 * {@link #close()}, returning when the subscription connection has closed.
	 */
	CompletableFuture<Void> closeAsync() {
		StatefulRedisPubSubConnection<String, String> open;
		synchronized (lock) {
			closed = true;
			open = connection;
			connection = null;
			if (sweeper != null) {
				sweeper.cancel(false);
				sweeper = null;
			}
			channels.values().forEach(channel -> channel.listeners.forEach(Runnable::run));
			channels.clear();
		}
		return open == null ? CompletableFuture.completedFuture(null) : open.closeAsync();
	}

	private StatefulRedisPubSubConnection<String, String> connection() {
		if (connection == null) {
			StatefulRedisPubSubConnection<String, String> opened = connector.get();
			opened.addListener(new RedisPubSubAdapter<>() {
				@Override
				public void message(String channelName, String message) {
					if (channelName.equals(grantChannel)) {
						grants.accept(message);
						return;
					}
					Channel channel = channels.get(channelName);
					if (channel != null) {
						channel.listeners.forEach(Runnable::run);
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

	private void sweep() {
		try {
			unsubscribeIdle(LINGER);
		}
		catch (RuntimeException ex) { // a thrown exception would cancel the periodic sweep
			logger.debug("Release-signal sweep failed: " + ex.getMessage());
		}
	}

	/**
	 * Drops a reference; a channel nobody uses lingers until the sweep, unless its SUBSCRIBE failed.
	 */
	private void dereference(Channel channel) {
		if (--channel.references > 0 || channels.get(channel.name) != channel) {
			return;
		}
		if (failed(channel.subscribed)) {
			forget(channel);
		}
		else {
			channel.idleSinceNanos = System.nanoTime();
		}
	}

	/**
	 * Drops a channel and unsubscribes it; call with {@link #lock} held, so the UNSUBSCRIBE is ordered with the
	 * SUBSCRIBE of a later subscription on the same connection.
	 */
	private void forget(Channel channel) {
		channels.remove(channel.name);
		if (connection != null) {
			connection.async().unsubscribe(channel.name);
		}
	}

	private static boolean failed(RedisFuture<Void> subscribed) {
		return subscribed.toCompletableFuture().isCompletedExceptionally();
	}

	/**
	 * One subscribed channel: its SUBSCRIBE reply, its listeners, and who uses it; references and idle time are
	 * guarded by the owner's lock.
	 */
	static final class Channel {

		private final String name;

		private final RedisFuture<Void> subscribed;

		private final Set<Runnable> listeners = ConcurrentHashMap.newKeySet();

		private int references;

		private long idleSinceNanos;

		Channel(String name, RedisFuture<Void> subscribed) {
			this.name = name;
			this.subscribed = subscribed;
		}

		/** The reply to this channel's SUBSCRIBE. */
		RedisFuture<Void> subscribed() {
			return subscribed;
		}

		/** Whether the SUBSCRIBE has been answered without an error. */
		boolean isLive() {
			return subscribed.isDone() && !failed(subscribed);
		}

	}

}
