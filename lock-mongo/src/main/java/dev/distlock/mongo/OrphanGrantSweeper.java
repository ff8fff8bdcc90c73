package dev.distlock.mongo;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.bson.Document;

import com.mongodb.client.MongoCollection;

import dev.distlock.core.LockStoreException;
import dev.distlock.core.spi.LockRequest;

/**
 * Grants nobody knows of: an acquire failed in a way that may have left it applied (a timeout, a lost reply, an
 * interrupt), so the lock may be held under a token whose caller has gone. Releasing by that token can only ever free
 * that acquire's own grant, so it is done at once and then again in the background until the lease the grant would
 * hold has passed since the store last failed to answer: the acquire may still be on its way (a pooled connection, a
 * paused server) and land as soon as the store answers again, so while the clean-up itself gets no answer the window
 * moves on and the next try comes soon; only answered tries back off.
 */
final class OrphanGrantSweeper {

	private static final Log logger = LogFactory.getLog(OrphanGrantSweeper.class);

	/** First delay of the background releases, and the delay after a try the store did not answer. */
	private static final long RETRY_MILLIS = 250;

	/** The longest delay between two answered background releases. */
	private static final long RETRY_MAX_MILLIS = 1_000;

	/**
	 * How long the background releases go on without any answer from the store before they stop (logged at WARN).
	 * A grant landing later still ends with its lease: a grant without expiry holds a provisional one until it is made
	 * lasting, which a request nobody waits for never is.
	 */
	private static final Duration MAX_SILENCE = Duration.ofMinutes(10);

	private final MongoCollection<Document> collection;

	private final Duration callTimeout;

	OrphanGrantSweeper(MongoCollection<Document> collection, Duration callTimeout) {
		this.collection = collection;
		this.callTimeout = callTimeout;
	}

	/**
	 * Releases whatever the request's token holds, now and in the background until {@code grantLease}, the lease its
	 * grant statement stores, has passed since the store last failed to answer; a failure now is attached to the
	 * acquire's error. Not defeated by an interrupt.
	 */
	void release(LockRequest request, Duration grantLease, LockStoreException acquireError) {
		Sweep sweep = new Sweep(request, grantLease.toNanos(), System.nanoTime());
		try {
			if (releaseByToken(request)) {
				logger.info("Released lock '" + request.key() + "': the acquire whose reply failed had been granted");
			}
			sweep.answered();
		}
		catch (LockStoreException ex) {
			acquireError.addSuppressed(ex);
			logger.debug("Could not release lock '" + request.key() + "' after a failed acquire yet", ex);
			sweep.unanswered();
		}
		sweep.schedule();
	}

	/** The background releases of one request: when to try next, and until when. */
	private final class Sweep {

		private final LockRequest request;

		private final long grantLeaseNanos;

		private long untilNanos;

		private long lastAnswerNanos;

		private long delayMillis = RETRY_MILLIS;

		Sweep(LockRequest request, long grantLeaseNanos, long startNanos) {
			this.request = request;
			this.grantLeaseNanos = grantLeaseNanos;
			this.untilNanos = startNanos + grantLeaseNanos;
			this.lastAnswerNanos = startNanos;
		}

		/** The store answered: a grant still on its way lands soon or not at all, so the tries may space out. */
		void answered() {
			lastAnswerNanos = System.nanoTime();
			delayMillis = Math.min(delayMillis * 2, RETRY_MAX_MILLIS);
		}

		/** The store did not answer: the grant may land once it does, so the window moves on and the next try comes soon. */
		void unanswered() {
			untilNanos = Math.max(untilNanos, System.nanoTime() + grantLeaseNanos);
			delayMillis = RETRY_MILLIS;
		}

		void schedule() {
			long now = System.nanoTime();
			if (now + TimeUnit.MILLISECONDS.toNanos(delayMillis) - untilNanos >= 0) {
				return;
			}
			if (now - lastAnswerNanos - MAX_SILENCE.toNanos() > 0) {
				logger.warn("Stopped releasing lock '" + request.key() + "' after a failed acquire: the store has not "
						+ "answered for " + MAX_SILENCE + "; a grant landing later ends with its lease");
				return;
			}
			CompletableFuture.runAsync(this::sweepOnce,
					CompletableFuture.delayedExecutor(delayMillis, TimeUnit.MILLISECONDS));
		}

		private void sweepOnce() {
			try {
				if (releaseByToken(request)) {
					logger.info("Released lock '" + request.key() + "': a failed acquire landed late");
				}
				answered();
			}
			catch (RuntimeException ex) {
				logger.debug("Release of lock '" + request.key() + "' after a failed acquire failed again", ex);
				unanswered();
			}
			schedule();
		}

	}

	/** Releases whatever this request's token holds, live or not. */
	private boolean releaseByToken(LockRequest request) {
		long bound = TimeLimits.leaseBoundMillis(request.lease().toNanos(), callTimeout);
		return MongoErrors.uninterrupted(request.key(), "release after a failed acquire", bound,
				() -> TimeLimits.bounded(collection, bound)
					.updateOne(LeaseStatements.heldByToken(request.key(), request.token(), request.shared()),
							LeaseStatements.release(request.token(), request.shared(), request.lockId(),
								request.token()))
					.getMatchedCount() == 1, null);
	}

}
