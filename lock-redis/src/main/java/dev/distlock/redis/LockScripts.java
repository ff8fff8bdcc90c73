package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.distlock.core.internal.Interrupts;
import dev.distlock.core.spi.LockRequest;

/**
 * The one place that knows each lock script's KEYS and ARGV layout (the Lua headers say the same from the other side),
 * and the deadline of each call: the lease it serves, capped by the command timeout.
 */
final class LockScripts {

	private static final Log logger = LogFactory.getLog(LockScripts.class);

	/** How often a cleanup that could not reach Redis is tried again, until the lease it guards has passed. */
	private static final Duration CLEANUP_RETRY = Duration.ofMillis(250);

	private final ScriptRunner runner;

	private final RedisKeys keys;

	private final boolean pubSub;

	private final String retentionMillis;

	LockScripts(ScriptRunner runner, RedisKeys keys, boolean pubSub, Duration fenceRetention) {
		this.runner = runner;
		this.keys = keys;
		this.pubSub = pubSub;
		this.retentionMillis = String.valueOf(fenceRetention.toMillis());
	}

	/**
	 * {@code acquire.lua}: {1, fence} taken, {2, fence} already ours, {0, holder's PTTL} refused.
	 * @param queueStay how long a refused caller's queue entry stays valid, or zero not to queue
	 */
	long[] acquire(LockRequest request, Duration queueStay, int attempt, String grantChannel) {
		String key = request.key();
		List<?> reply = runner.run(RedisScripts.ACQUIRE,
				List.of(keys.lock(key), keys.fence(key), keys.queue(key), keys.waiters(key)),
				List.of(request.token(), millis(request.lease()), request.owner().owner(), request.owner().host(),
						String.valueOf(queueStay.toMillis()), String.valueOf(attempt), grantChannel, retentionMillis),
				request.lease());
		return new long[] { number(reply, 0), number(reply, 1) };
	}

	/**
	 * {@code acquire-all.lua}: {1, fence per request...} or {0, PTTL of the first blocking lock}.
	 */
	long[] acquireAll(List<LockRequest> requests) {
		List<String> redisKeys = new ArrayList<>(requests.size() * 2);
		List<String> args = new ArrayList<>(requests.size() * 6 + 1);
		Duration shortest = requests.get(0).lease();
		for (LockRequest request : requests) {
			redisKeys.add(keys.lock(request.key()));
			redisKeys.add(keys.fence(request.key()));
			args.add(request.token());
			args.add(millis(request.lease()));
			args.add(request.shared() ? "1" : "0");
			args.add(String.valueOf(request.shared() ? request.maxConcurrent() : 1));
			args.add(request.owner().owner());
			args.add(request.owner().host());
			shortest = request.lease().compareTo(shortest) < 0 ? request.lease() : shortest;
		}
		args.add(retentionMillis);
		List<?> reply = runner.run(RedisScripts.ACQUIRE_ALL, redisKeys, args, shortest);
		long[] result = new long[reply == null ? 0 : reply.size()];
		for (int i = 0; i < result.length; i++) {
			result[i] = number(reply, i);
		}
		if (result.length < 2) {
			throw new IllegalStateException("Unexpected script result " + reply);
		}
		return result;
	}

	/** {@code release.lua} or {@code release-shared.lua}: whether this token held the lock (now or on an earlier run). */
	boolean release(String key, String token, boolean shared, Duration lease) {
		String channel = pubSub ? keys.channel(key) : "";
		Long released = shared
				? runner.run(RedisScripts.RELEASE_SHARED, List.of(keys.lock(key), keys.fence(key)),
						List.of(token, channel), lease)
				: runner.run(RedisScripts.RELEASE,
						List.of(keys.lock(key), keys.fence(key), keys.queue(key), keys.waiters(key)),
						List.of(token, channel, retentionMillis), lease);
		return released != null && released == 1;
	}

	/** {@code extend.lua} or {@code extend-shared.lua}: whether this token still held the lock. */
	boolean extend(String key, String token, boolean shared, Duration lease) {
		Long extended = runner.run(shared ? RedisScripts.EXTEND_SHARED : RedisScripts.EXTEND, List.of(keys.lock(key)),
				List.of(token, millis(lease)), lease);
		return extended != null && extended == 1;
	}

	/** {@code force-release.lua}: whether a lock was removed. */
	boolean forceRelease(String key) {
		Long removed = runner.run(RedisScripts.FORCE_RELEASE, List.of(keys.lock(key)),
				List.of(pubSub ? keys.channel(key) : ""), runner.timeout());
		return removed != null && removed == 1;
	}

	/**
	 * Makes sure a caller that has gone holds nothing: withdraws its queue entry and releases a lock held under its
	 * token (a hand-off it never took, or an acquire whose reply it never got). Runs with the interrupt flag cleared;
	 * if Redis cannot be reached, tries again in the background until the lease has passed, after which Redis has
	 * let the lock go by itself. Never throws.
	 */
	void cleanUp(String key, String token, boolean shared, Duration lease) {
		long until = System.nanoTime() + lease.toNanos();
		Interrupts.uninterruptibly(() -> cleanUpOnce(key, token, shared, lease, until));
	}

	private void cleanUpOnce(String key, String token, boolean shared, Duration lease, long untilNanos) {
		try {
			if (shared) {
				release(key, token, true, lease);
			}
			else if (withdraw(key, token, lease)) {
				release(key, token, false, lease);
			}
		}
		catch (RuntimeException ex) {
			if (System.nanoTime() - untilNanos >= 0) {
				logger.debug("Gave up cleaning up lock '" + key + "': its lease has passed", ex);
				return;
			}
			logger.debug("Could not clean up lock '" + key + "' yet; trying again", ex);
			CompletableFuture.runAsync(() -> cleanUpOnce(key, token, shared, lease, untilNanos),
					CompletableFuture.delayedExecutor(CLEANUP_RETRY.toMillis(), TimeUnit.MILLISECONDS));
		}
	}

	private boolean withdraw(String key, String token, Duration lease) {
		Long held = runner.run(RedisScripts.WITHDRAW, List.of(keys.lock(key), keys.queue(key), keys.waiters(key)),
				List.of(token), lease);
		return held != null && held == 1;
	}

	private static long number(@Nullable List<?> result, int index) {
		if (result == null || result.size() <= index) {
			throw new IllegalStateException("Unexpected script result " + result);
		}
		return ((Number) result.get(index)).longValue();
	}

	private static String millis(Duration lease) {
		return String.valueOf(Math.max(1, lease.toMillis()));
	}

}
