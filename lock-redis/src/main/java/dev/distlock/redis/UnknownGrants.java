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
 * lease. If Redis cannot be reached, it is tried again in the background until the lease has passed, after which Redis
 * has let the lock go by itself.
 */
final class UnknownGrants {

	private static final Log logger = LogFactory.getLog(UnknownGrants.class);

	/** How often a cleanup that could not reach Redis is tried again, until the lease it guards has passed. */
	private static final Duration RETRY = Duration.ofMillis(250);

	private final ScriptRunner runner;

	private final RedisKeys keys;

	private final ReleaseScripts releases;

	private final RedisLockIds ids;

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
		long until = System.nanoTime() + request.lease().toNanos();
		Interrupts.uninterruptibly(() -> releaseOnce(request.key(), request.token(), request.shared(),
				request.lease(), request.lockId(), until));
	}

	private void releaseOnce(String key, String token, boolean shared, Duration lease, @Nullable String lockId,
			long untilNanos) {
		try {
			if (shared) {
				releases.release(key, token, true, lease, lockId);
			}
			else if (withdraw(key, token, lease)) {
				releases.release(key, token, false, lease, lockId);
			}
			else if (lockId != null) {
				ids.unindex(lockId, token, key, runner.deadline(lease));
			}
		}
		catch (RuntimeException ex) {
			if (System.nanoTime() - untilNanos >= 0) {
				logger.debug("Gave up cleaning up lock '" + key + "': its lease has passed", ex);
				return;
			}
			logger.debug("Could not clean up lock '" + key + "' yet; trying again", ex);
			CompletableFuture.runAsync(() -> releaseOnce(key, token, shared, lease, lockId, untilNanos),
					CompletableFuture.delayedExecutor(RETRY.toMillis(), TimeUnit.MILLISECONDS));
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
