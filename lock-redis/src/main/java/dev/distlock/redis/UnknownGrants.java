package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.distlock.core.internal.Interrupts;
import dev.distlock.core.spi.LockRequest;

/**
 * Grants nobody knows of: a hand-off to a waiter that gave up, or an acquire that failed without an answer (a timeout,
 * a lost reply, a grant the replicas did not acknowledge), so the lock may be held under a token whose caller has
 * gone. The one place that knows the KEYS and ARGV of {@code withdraw.lua}: the waiter's queue entry goes, and a lock
 * held under its token is released at once (passing it to the next waiter, or deleting it) instead of sitting out its
 * lease. If Redis cannot be reached (or a paused server keeps it waiting behind the acquire it is cleaning up after),
 * it is tried again in the background: for a lock with a lease until the lease has passed, after which Redis has let
 * the lock go by itself; for a lock without expiry until Redis answers (released, or not held under this token),
 * however long that takes, as nothing else would ever free it. Only closing the provider ends those retries.
 */
final class UnknownGrants {

	private static final Log logger = LogFactory.getLog(UnknownGrants.class);

	/** How soon a cleanup that could not reach Redis is first tried again. */
	private static final Duration RETRY = Duration.ofMillis(250);

	/** The longest pause between tries of a cleanup (each failed try doubles the pause up to this). */
	private static final Duration MAX_RETRY = Duration.ofSeconds(5);

	private final ScriptRunner runner;

	private final RedisKeys keys;

	private final ReleaseScripts releases;

	private final RedisLockIds ids;

	private volatile boolean closed;

	UnknownGrants(ScriptRunner runner, RedisKeys keys, ReleaseScripts releases, RedisLockIds ids) {
		this.runner = runner;
		this.keys = keys;
		this.releases = releases;
		this.ids = ids;
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
			if (shared) {
				releases.release(key, token, true, lease, lockId, noExpiry);
			}
			else if (withdraw(key, token, lease)) {
				releases.release(key, token, false, lease, lockId, noExpiry);
			}
			else if (lockId != null) {
				ids.unindex(lockId, token, key, runner.deadline(lease));
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

	/**
	 * {@code withdraw.lua}: the waiter's queue entry goes; whether the lock is held under its token now (a hand-off it
	 * never took, or a grant whose reply it never got).
	 */
	private boolean withdraw(String key, String token, Duration lease) {
		String lock = keys.lock(key);
		Long held = runner.run(RedisScripts.WITHDRAW,
				new String[] { lock, lock + RedisKeys.QUEUE, lock + RedisKeys.WAITERS }, new String[] { token },
				runner.deadline(lease));
		return held != null && held == 1;
	}

}
