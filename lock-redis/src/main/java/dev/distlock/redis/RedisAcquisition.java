package dev.distlock.redis;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.distlock.core.spi.Acquisition;
import dev.distlock.core.spi.FirstAttempt;
import dev.distlock.core.spi.LockRequest;

/**
 * All of one waiting acquisition's Redis state: its place in the key's FIFO waiter queue (the send time of each
 * queued attempt), the grant a release hands it over pub/sub, the holder's remaining lease that caps each wait, the
 * withdrawal when it gives up, and the lease start of what it was granted.
 * <p>An exclusive request queues with every attempt, so a release hands it the lock in the release script itself. The
 * grant names the attempt whose queue entry it used; that attempt was sent before the grant, so its send time is a
 * safe start for the lease. A reply of "already yours" (a grant whose message has not arrived) counts from the first
 * queued attempt. Without pub/sub an exclusive request still queues, with no grant channel: its entry only keeps new
 * shared holders out while it waits (writer priority), and it takes the lock by its own attempts. Shared requests do
 * not queue; they and waiters without pub/sub wait for a release message, the holder's lease end or the backoff, whichever
 * comes first.
 * <p>The first attempt usually wins: until it is refused, the acquisition holds only its request and the first
 * attempt's send time. A refused first attempt is queued in Redis by that same script run (writer priority and the
 * FIFO hand-off count on it); only then does the acquisition make its signal semaphore and register for grant messages.
 * A grant published between that reply and the registration goes unheard, like one before the subscription is live,
 * and is taken the same way: the first wait subscribes and looks again once live, and that attempt finds the lock
 * already its own (answer 2).
 * <p>Written by the waiting thread and the pub/sub listener, hence synchronised.
 */
final class RedisAcquisition implements Acquisition {

	private static final Log logger = LogFactory.getLog(RedisAcquisition.class);

	/**
	 * The longest a waiter waits without refreshing its queue entry and the waiting mark: well within
	 * {@link RedisKeys#QUEUE_STAY}, so however long its backoff, it keeps its place in the queue and a release always sees the
	 * mark (and so publishes), also against a holder without expiry, whose mark lasts only the queue stay.
	 */
	static final Duration REMARK = RedisKeys.QUEUE_STAY.dividedBy(2);

	private final LockRequest request;

	private final LockScripts scripts;

	private final PubSubChannels channels;

	/** The provider's waiters by owner token, where grant messages are routed. */
	private final Map<String, RedisAcquisition> queued;

	/** Exclusive requests queue (writer priority), with or without pub/sub. */
	private final boolean queues;

	/** Queued and told of hand-offs over pub/sub. */
	private final boolean handsOff;

	/** Made at the first refusal, before this waiter can be signalled. */
	private @Nullable Semaphore signals;

	/** The first queued attempt's send time. */
	private long firstSentNanos;

	/** The send time of every queued attempt, made at the second one. */
	private long @Nullable [] sentNanos;

	/** Registered in {@link #queued} for grant messages. */
	private boolean registered;

	private int attempts;

	private @Nullable Grant grant;

	private boolean taken;

	/** An attempt failed without an answer: it may have been granted anyway. */
	private boolean uncertain;

	private volatile long holderExpiresAtNanos;

	private @Nullable Subscription subscription;

	/** Subscribing failed: waits end on the holder's lease end or the backoff only. */
	private boolean polling;

	RedisAcquisition(LockRequest request, LockScripts scripts, PubSubChannels channels,
			Map<String, RedisAcquisition> queued) {
		this.request = request;
		this.scripts = scripts;
		this.channels = channels;
		this.queued = queued;
		this.queues = !request.shared();
		this.handsOff = channels.enabled() && queues;
		this.polling = !channels.enabled();
	}

	/**
	 * The first attempt of a waiting acquisition ({@link RedisLockProvider#start}): the script run
	 * {@link #tryOnce()}'s first attempt sends, which queues the request when refused; only a refusal makes the
	 * acquisition, in the state that attempt left it (its queue entry's send time, the holder's lease end, registered
	 * for grant messages). An attempt that got no answer is withdrawn before the error is thrown (a lock it may have
	 * been granted, and its queue entry), as {@link #close()} withdraws it. A lean request ({@link LockScripts#lean})
	 * first tries the plain {@code SET NX GET}, which leaves nothing behind when refused; only then does it send that
	 * queueing script run, at once.
	 */
	static FirstAttempt start(LockRequest request, LockScripts scripts, PubSubChannels channels,
			Map<String, RedisAcquisition> queued) {
		long sent = System.nanoTime();
		long[] reply;
		try {
			if (scripts.lean(request)) {
				reply = scripts.acquireLean(request);
				if (reply[0] != 0) {
					return new Granted(new RedisLease(scripts, request, 0, sent), sent);
				}
				sent = System.nanoTime();
			}
			reply = send(request, scripts, channels, 0);
		}
		catch (RuntimeException ex) {
			scripts.cleanUp(request);
			throw ex;
		}
		if (reply[0] != 0) {
			// 1 (or shared): taken now; 2: already ours (a replay of this very attempt), counted from its send time.
			return new Granted(new RedisLease(scripts, request, reply[1], sent), sent);
		}
		RedisAcquisition acquisition = new RedisAcquisition(request, scripts, channels, queued);
		acquisition.refusedFirst(sent, reply[1]);
		return acquisition;
	}

	@Override
	public Optional<Granted> tryOnce() {
		// A release handed us the lock: no round trip. With replica acks the attempt below takes it instead (answer 2),
		// as the grant must be written on this client's connection for WAIT to cover it.
		// A hand-off to a waiter without expiry is provisional (a lease of the queue stay, so a dead waiter does not
		// hold it for ever): the attempt below makes it its own for good (answer 2).
		Grant handedOver = scripts.acknowledges() || request.noExpiry() ? null : takeGrant();
		if (handedOver != null) {
			return Optional.of(granted(handedOver.fencingToken(), handedOver.leaseStartNanos()));
		}
		long sent = System.nanoTime();
		int attempt = queues ? queuedAttempt(sent) : 0;
		long[] reply;
		try {
			reply = send(request, scripts, channels, attempt);
		}
		catch (RuntimeException ex) {
			synchronized (this) {
				uncertain = true;
			}
			throw ex;
		}
		if (reply[0] == 0) {
			holderExpiresAtNanos = reply[1] > 0 ? System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(reply[1]) : 0;
			waiting();
			return Optional.empty();
		}
		long firstQueued;
		synchronized (this) {
			taken = true;
			firstQueued = attempts > 0 ? firstSentNanos : sent;
		}
		// 1 (or shared): taken now; 2: handed to us by a release whose message has not arrived.
		return Optional.of(granted(reply[1], reply[0] == 2 ? firstQueued : sent));
	}

	@Override
	public boolean awaitSignal(Duration max) throws InterruptedException {
		if (subscription == null && !polling) {
			try {
				subscription = channels.subscribe(request.key(), handsOff, waiting()::release);
				// Newly subscribed: a release or hand-off before now went unheard by this waiter (even on a channel
				// already live, lingering from another waiter, its signals reach this one only from now on), so look
				// again as soon as the subscription is live (or the wait is over).
				if (!subscription.isLive()) {
					subscription.awaitLive(max);
				}
				return true;
			}
			catch (RuntimeException ex) {
				logger.debug("Release signals unavailable for '" + request.key() + "'; polling with backoff", ex);
				polling = true;
			}
		}
		long wait = max.toNanos();
		long expiresAt = holderExpiresAtNanos;
		if (expiresAt != 0) {
			// The holder's lease runs out before the backoff would end: wake then (plus 1 ms for rounding).
			wait = Math.max(0, Math.min(wait, expiresAt - System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1)));
		}
		long until = System.nanoTime() + wait;
		while (true) {
			long left = until - System.nanoTime();
			boolean remarks = (queues || !polling) && left > REMARK.toNanos();
			if (waiting().tryAcquire(remarks ? REMARK.toNanos() : Math.max(0, left), TimeUnit.NANOSECONDS)) {
				return true;
			}
			if (!remarks) {
				return false;
			}
			if (remark()) {
				return true; // granted meanwhile: the next attempt takes it
			}
		}
	}

	/**
	 * A queued attempt sent only to keep this waiter's queue entry and the waiting mark alive during a long backoff;
	 * not one of the caller's attempts. A grant it gets is kept for the next {@link #tryOnce()}, as a hand-off is.
	 * @return whether it was granted, or failed (then the next attempt finds out)
	 */
	private boolean remark() {
		long sent = System.nanoTime();
		int attempt = queues ? queuedAttempt(sent) : 0;
		long[] reply;
		try {
			reply = send(request, scripts, channels, attempt);
		}
		catch (RuntimeException ex) {
			synchronized (this) {
				uncertain = true;
			}
			logger.debug("Could not refresh the queue entry of '" + request.key() + "'", ex);
			return true;
		}
		if (reply[0] == 0) {
			holderExpiresAtNanos = reply[1] > 0 ? System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(reply[1]) : 0;
			return false;
		}
		synchronized (this) {
			if (!taken) {
				grant = new Grant(reply[1], reply[0] == 2 && attempts > 0 ? firstSentNanos : sent);
				uncertain = true; // a caller that gives up before taking it has it released
			}
		}
		return true;
	}

	/**
	 * Takes on the state a refused first attempt sent at {@code sent} left: as {@link #tryOnce()} would have recorded
	 * it, with the holder's remaining lease in {@code holderMillis}.
	 */
	private void refusedFirst(long sent, long holderMillis) {
		if (queues) {
			queuedAttempt(sent);
		}
		holderExpiresAtNanos = holderMillis > 0 ? System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(holderMillis) : 0;
		waiting();
	}

	/**
	 * One attempt's script: an exclusive request queues when refused (on the client's grant channel with pub/sub), a
	 * shared one marks the blocking lock so that its release publishes.
	 */
	private static long[] send(LockRequest request, LockScripts scripts, PubSubChannels channels, int attempt) {
		return request.shared() ? scripts.acquireAll(List.of(request), true)
				: scripts.acquire(request, RedisKeys.QUEUE_STAY, attempt,
						channels.enabled() ? channels.grantChannel() : "");
	}

	@Override
	public void close() {
		boolean cleanUp;
		synchronized (this) {
			if (registered) {
				queued.remove(request.token(), this);
			}
			cleanUp = !taken && (attempts > 0 || uncertain);
			taken = true; // a grant arriving from now on is the cleanup's to pass on
		}
		if (subscription != null) {
			subscription.close();
		}
		if (cleanUp) {
			scripts.cleanUp(request);
		}
	}

	/**
	 * Routes a hand-off message, {@code g <token> <fencing token> <attempt>}, to its waiter; ignores any other.
	 */
	static void route(String message, Map<String, RedisAcquisition> queued) {
		String[] parts = message.split(" ");
		if (parts.length != 4 || !parts[0].equals("g")) {
			logger.warn("Ignoring a malformed hand-off message on a grant channel");
			return;
		}
		RedisAcquisition waiter = queued.get(parts[1]);
		if (waiter != null && waiter.granted(Long.parseLong(parts[2]), Integer.parseInt(parts[3]))) {
			waiter.waiting().release();
		}
	}

	private Granted granted(long fencingToken, long leaseStartNanos) {
		return new Granted(new RedisLease(scripts, request, fencingToken, leaseStartNanos), leaseStartNanos);
	}

	/**
	 * Records that a queued attempt is being sent now.
	 * @return the attempt's number, stored in the queue entry and echoed by a grant
	 */
	private synchronized int queuedAttempt(long nowNanos) {
		if (attempts == 0) {
			firstSentNanos = nowNanos;
			return attempts++;
		}
		long[] sent = sentNanos;
		if (sent == null) {
			sent = new long[8];
			sent[0] = firstSentNanos;
		}
		else if (attempts == sent.length) {
			sent = Arrays.copyOf(sent, attempts * 2);
		}
		sent[attempts] = nowNanos;
		sentNanos = sent;
		return attempts++;
	}

	/**
	 * The waiting state, made on the first refusal: the signal semaphore, and (for a queued request, whose refused
	 * attempt left an entry in the key's queue) the registration for grant messages.
	 */
	private synchronized Semaphore waiting() {
		Semaphore semaphore = signals;
		if (semaphore == null) {
			semaphore = new Semaphore(0);
			signals = semaphore;
		}
		if (queues && !registered && attempts > 0 && !taken) {
			registered = true;
			queued.put(request.token(), this);
		}
		return semaphore;
	}

	private synchronized long sentAt(int attempt) {
		return attempt == 0 ? firstSentNanos : sentNanos[attempt];
	}

	/**
	 * Records a grant published by a release; false when it names no attempt of ours or came after we were done.
	 */
	private synchronized boolean granted(long fencingToken, int attempt) {
		if (taken || attempt < 0 || attempt >= attempts) {
			return false;
		}
		grant = new Grant(fencingToken, sentAt(attempt));
		return true;
	}

	private synchronized @Nullable Grant takeGrant() {
		if (taken || grant == null) {
			return null;
		}
		taken = true;
		return grant;
	}

	/**
	 * A hand-off: the fencing token the release issued, and the send time of the queued attempt it served.
	 */
	private record Grant(long fencingToken, long leaseStartNanos) {
	}

}
