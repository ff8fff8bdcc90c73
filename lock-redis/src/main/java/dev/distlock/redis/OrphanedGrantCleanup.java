package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.distlock.core.spi.Interrupts;
import dev.distlock.core.spi.LockRequest;

/**
 * The cleanup of orphaned grants, grants nobody knows of: a hand-off to a waiter that gave up, or an acquire that
 * failed without an answer (a timeout, a lost reply, a grant the replicas did not acknowledge), so the lock may be held
 * under a token whose caller has gone. The cleanup is one script per lock ({@code release.lua} withdrawing the waiter's
 * queue entry too, or {@code release-shared.lua}), then the lock ID's index entry: the queue entry goes and a lock held
 * under the token is released at once (passing it to the next waiter, or deleting it) instead of sitting out its lease.
 * The script takes effect whenever the server runs it, answered or not: sent on the connection right after the acquire
 * it cleans up after, it runs right after it, so a paused server frees the lock as soon as it resumes. Until a cleanup
 * is answered it is tried again in the background: for a lock with a lease until the lease has passed, after which
 * Redis has let the lock go by itself; for a lock without expiry until Redis answers, however long that takes (such a
 * grant is only provisional until its caller makes it lasting, so it ends by itself too, but its index entry needs the
 * cleanup). Only closing the provider ends those retries.
 */
final class OrphanedGrantCleanup {

	private static final Log logger = LogFactory.getLog(OrphanedGrantCleanup.class);

	/** How soon a cleanup that could not reach Redis is first tried again. */
	private static final Duration RETRY = Duration.ofMillis(250);

	/** The longest pause between tries of a cleanup (each failed try doubles the pause up to this). */
	private static final Duration MAX_RETRY = Duration.ofSeconds(5);

	private final LockScripts scripts;

	private volatile boolean closed;

	OrphanedGrantCleanup(LockScripts scripts) {
		this.scripts = scripts;
	}

	/**
	 * Makes sure the request's caller holds nothing: withdraws its queue entry and releases a lock held under its
	 * token. Runs with the interrupt flag cleared. Never throws.
	 */
	void release(LockRequest request) {
		// A lock without expiry is never let go by Redis: its cleanup has no end but success (or the provider's close).
		long until = request.noExpiry() ? Long.MAX_VALUE : System.nanoTime() + request.lease().toNanos();
		Interrupts.uninterruptibly(() -> releaseOnce(request.key(), request.token(), request.shared(),
				request.lease(), request.lockId(), request.noExpiry(), until, RETRY.toMillis()));
	}

	/**
	 * Stops the background retries; a lock without expiry whose cleanup had not yet reached Redis may then stay.
	 */
	void close() {
		closed = true;
	}

	private void releaseOnce(String key, String token, boolean shared, Duration lease, @Nullable String lockId,
			boolean noExpiry, long untilNanos, long retryMillis) {
		try {
			// One self-sufficient script per lock (release.lua withdraws the queue entry too): a cleanup that gets no
			// answer has still taken effect once the server runs it, right after the acquire it follows on the
			// connection, so a paused server frees the lock as soon as it resumes, whatever the retry backoff.
			if (shared) {
				scripts.release(key, token, true, lease, lockId, noExpiry);
			}
			else {
				scripts.withdrawAndRelease(key, token, lease, lockId, noExpiry);
			}
		}
		catch (RuntimeException ex) {
			if (untilNanos != Long.MAX_VALUE && System.nanoTime() - untilNanos >= 0) {
				logger.debug("Gave up cleaning up lock '" + key + "': its lease has passed", ex);
				return;
			}
			if (closed) {
				if (untilNanos == Long.MAX_VALUE) {
					logger.warn("Provider closed before lock '" + key + "' (no expiry) could be cleaned up after a "
							+ "failed acquire; it may stay held until released by force", ex);
				}
				return;
			}
			logger.debug("Could not clean up lock '" + key + "' yet; trying again", ex);
			long next = Math.min(retryMillis * 2, MAX_RETRY.toMillis());
			CompletableFuture.runAsync(() -> releaseOnce(key, token, shared, lease, lockId, noExpiry, untilNanos, next),
					CompletableFuture.delayedExecutor(retryMillis, TimeUnit.MILLISECONDS));
		}
	}

}
