package dev.distlock.redis;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The one place that knows the KEYS and ARGV layout of the scripts that let a lock go: {@code release.lua} (an
 * exclusive lock, handed to the oldest live waiter when one is queued), {@code release-shared.lua} (one shared place)
 * and {@code force-release.lua} (whoever holds it). Each call's deadline is the lease it serves, with the floor and cap of
 * {@link ScriptRunner#deadline}. Releases never wait for replica acknowledgement: a release lost in a failover leaves the lock to expire
 * with its lease, the safe direction.
 */
final class ReleaseScripts {

	private final ScriptRunner runner;

	private final RedisKeys keys;

	private final RedisLockIds ids;

	private final String pubSub;

	private final String retentionMillis;

	private final String queueStayMillis;

	/**
	 * How long the fence hash's list of recent shared releases keeps one: twice the command timeout, at least 10 s.
	 * Lettuce replays an unanswered command after a reconnect while the caller still waits for it, so within the
	 * command timeout.
	 */
	private final String replayWindowMillis;

	ReleaseScripts(ScriptRunner runner, RedisKeys keys, RedisLockIds ids, boolean pubSub, Duration fenceRetention) {
		this.runner = runner;
		this.keys = keys;
		this.ids = ids;
		this.pubSub = pubSub ? "1" : "0";
		this.retentionMillis = String.valueOf(fenceRetention.toMillis());
		this.queueStayMillis = String.valueOf(RedisKeys.QUEUE_STAY.toMillis());
		this.replayWindowMillis = String.valueOf(Math.max(runner.timeout().multipliedBy(2).toMillis(), 10_000));
	}

	/**
	 * {@code release.lua} or {@code release-shared.lua}: whether this token held the lock (now or on an earlier run).
	 * A lock taken under a lock ID also drops its record, then its entry in the ID's index (a second call, as the
	 * index may be in another slot; a crash between leaves an entry that unlock and renew by ID drop).
	 */
	boolean release(String key, String token, boolean shared, Duration lease, @Nullable String lockId,
			boolean noExpiry) {
		return release(key, token, shared, lease, lockId, false, noExpiry, false);
	}

	/**
	 * The cleanup of an exclusive caller that has gone: its queue entry is withdrawn and a lock held under its token
	 * released in the same script, so the cleanup needs no answer to take effect (sent while the server is paused, it
	 * runs right after the acquire it cleans up after). Whether the token held the lock.
	 */
	boolean withdrawAndRelease(String key, String token, Duration lease, @Nullable String lockId, boolean noExpiry) {
		return release(key, token, false, lease, lockId, false, noExpiry, true);
	}

	/**
	 * A release by lock ID: as {@link #release(String, String, boolean, Duration, String)}, but the holder's own later
	 * release of the same token reports the lock lost.
	 */
	boolean releaseById(String key, String token, boolean shared, String lockId) {
		return release(key, token, shared, runner.timeout(), lockId, true, true, false);
	}

	private boolean release(String key, String token, boolean shared, Duration lease, @Nullable String lockId,
			boolean byId, boolean noExpiry, boolean withdraw) {
		long until = runner.deadline(lease);
		RedisKeys.OfLock redisKeys = keys.of(key);
		Long released = shared
				? runner.run(RedisScripts.RELEASE_SHARED,
						new String[] { redisKeys.lock(), redisKeys.fence(), redisKeys.ids(), redisKeys.holders() },
						// Always published: waiters of other clients may rely on it, even if this client has no pub/sub.
						new String[] { token, redisKeys.released(), byId ? "1" : "0",
								retentionMillis, replayWindowMillis, lockId != null ? "1" : "0" },
						until)
				: runner.run(RedisScripts.RELEASE,
						new String[] { redisKeys.lock(), redisKeys.fence(), redisKeys.waiting(), redisKeys.queue(),
								redisKeys.waiters(), redisKeys.ids() },
						new String[] { token, pubSub, retentionMillis, queueStayMillis,
								byId ? "2" : lockId != null ? "1" : "0", noExpiry ? "1" : "0", withdraw ? "1" : "0" },
						until);
		if (lockId != null) {
			ids.unindex(lockId, token, key, until);
		}
		return released != null && released == 1;
	}

	/**
	 * {@code force-release.lua}: whether a lock was removed. The evicted holders' lock-ID records go with it, and then
	 * their entries in their IDs' indexes (one more call each, as an index may be in another slot).
	 */
	boolean forceRelease(String key) {
		RedisKeys.OfLock redisKeys = keys.of(key);
		long until = runner.deadline(runner.timeout());
		List<?> reply = runner.run(RedisScripts.FORCE_RELEASE,
				new String[] { redisKeys.lock(), redisKeys.ids(), redisKeys.holders(), redisKeys.fence() },
				new String[] { redisKeys.released(), retentionMillis }, until);
		if (reply == null || reply.isEmpty()) {
			return false;
		}
		for (int i = 1; i + 1 < reply.size(); i += 2) {
			ids.unindex(String.valueOf(reply.get(i + 1)), String.valueOf(reply.get(i)), key, until);
		}
		return reply.get(0) instanceof Number removed && removed.longValue() == 1;
	}

}
