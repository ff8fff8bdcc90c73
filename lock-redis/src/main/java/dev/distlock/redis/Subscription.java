package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;

/**
 * One waiter's references on a key's release channel (and on its client's grant channel, when it queues for a
 * hand-off), taken by {@link PubSubChannels#subscribe}; close it once, and the channels it held linger and go as
 * {@link PubSubChannels} decides.
 */
final class Subscription implements AutoCloseable {

	private final PubSubChannels channels;

	private final PubSubChannels.Channel channel;

	private final PubSubChannels.@Nullable Channel grantsChannel;

	private final Runnable listener;

	private boolean closed;

	Subscription(PubSubChannels channels, PubSubChannels.Channel channel,
			PubSubChannels.@Nullable Channel grantsChannel, Runnable listener) {
		this.channels = channels;
		this.channel = channel;
		this.grantsChannel = grantsChannel;
		this.listener = listener;
	}

	/**
	 * Whether every channel of this subscription is live now.
	 */
	boolean isLive() {
		return channel.isLive() && (grantsChannel == null || grantsChannel.isLive());
	}

	/**
	 * Waits up to {@code max} for the SUBSCRIBE replies.
	 * @return whether every channel is live
	 */
	boolean awaitLive(Duration max) throws InterruptedException {
		long deadline = System.nanoTime() + max.toNanos();
		for (PubSubChannels.Channel each : grantsChannel != null ? List.of(channel, grantsChannel) : List.of(channel)) {
			try {
				each.subscribed().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
			}
			catch (ExecutionException | TimeoutException ex) {
				return false;
			}
		}
		return true;
	}

	@Override
	public synchronized void close() {
		if (closed) {
			return;
		}
		closed = true;
		channels.unsubscribe(channel, grantsChannel, listener);
	}

}
