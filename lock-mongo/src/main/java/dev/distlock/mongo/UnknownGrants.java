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
 * that acquire's own grant, so it is done at once and then again in the background, more and more rarely, until the
 * lease the grant would hold has passed: the acquire may still be on its way (a pooled connection, a paused server)
 * and land after the first release.
 */
final class UnknownGrants {

	private static final Log logger = LogFactory.getLog(UnknownGrants.class);

	/** First delay, and the longest, of the background releases. */
	private static final long RETRY_MILLIS = 250;

	private static final long RETRY_MAX_MILLIS = 2_000;

	private final MongoCollection<Document> collection;

	private final Duration callTimeout;

	UnknownGrants(MongoCollection<Document> collection, Duration callTimeout) {
		this.collection = collection;
		this.callTimeout = callTimeout;
	}

	/**
	 * Releases whatever the request's token holds, now and in the background for {@code grantLease}, the lease its
	 * grant statement stores; a failure now is attached to the
	 * acquire's error. Not defeated by an interrupt.
	 */
	void release(LockRequest request, Duration grantLease, LockStoreException acquireError) {
		long until = System.nanoTime() + grantLease.toNanos();
		try {
			if (releaseByToken(request)) {
				logger.info("Released lock '" + request.key() + "': the acquire whose reply failed had been granted");
			}
		}
		catch (LockStoreException ex) {
			acquireError.addSuppressed(ex);
			logger.debug("Could not release lock '" + request.key() + "' after a failed acquire yet", ex);
		}
		sweep(request, until, RETRY_MILLIS);
	}

	private void sweep(LockRequest request, long untilNanos, long delayMillis) {
		if (System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMillis) - untilNanos >= 0) {
			return;
		}
		CompletableFuture.runAsync(() -> {
			try {
				if (releaseByToken(request)) {
					logger.info("Released lock '" + request.key() + "': a failed acquire landed late");
				}
			}
			catch (RuntimeException ex) {
				logger.debug("Release of lock '" + request.key() + "' after a failed acquire failed again", ex);
			}
			sweep(request, untilNanos, Math.min(delayMillis * 2, RETRY_MAX_MILLIS));
		}, CompletableFuture.delayedExecutor(delayMillis, TimeUnit.MILLISECONDS));
	}

	/** Releases whatever this request's token holds, live or not. */
	private boolean releaseByToken(LockRequest request) {
		long bound = CallBounds.leaseBoundMillis(request.lease().toNanos(), callTimeout);
		return MongoErrors.uninterrupted(request.key(), "release after a failed acquire", bound,
				() -> CallBounds.bounded(collection, bound)
					.updateOne(LeaseStatements.heldByToken(request.key(), request.token(), request.shared()),
							LeaseStatements.release(request.token(), request.shared(), request.lockId()))
					.getMatchedCount() == 1, null);
	}

}
