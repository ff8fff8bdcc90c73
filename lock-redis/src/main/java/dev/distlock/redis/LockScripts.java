package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.distlock.core.LockStoreException;
import dev.distlock.core.internal.Interrupts;
import dev.distlock.core.spi.LockRequest;

/**
 * The one place that knows each lock script's KEYS and ARGV layout (the Lua headers say the same from the other side),
 * the deadline of each call (the lease it serves, capped by the command timeout), and the replica acknowledgement of
 * grants and extensions ({@code WAIT}) when {@code replicaAcks} is above 0.
 */
final class LockScripts {

	private static final Log logger = LogFactory.getLog(LockScripts.class);

	/** How often a cleanup that could not reach Redis is tried again, until the lease it guards has passed. */
	private static final Duration CLEANUP_RETRY = Duration.ofMillis(250);

	private final ScriptRunner runner;

	private final RedisKeys keys;

	private final String pubSub;

	private final Duration retention;

	private final String retentionMillis;

	private final String queueStayMillis;

	private final int replicaAcks;

	/** The last lease's ARGV strings: most callers use one lease, so each call need not format it again. */
	private volatile LeaseArgs lastLease = new LeaseArgs(Duration.ZERO, "1", "1");

	LockScripts(ScriptRunner runner, RedisKeys keys, boolean pubSub, Duration fenceRetention, int replicaAcks) {
		this.runner = runner;
		this.keys = keys;
		this.pubSub = pubSub ? "1" : "0";
		this.retention = fenceRetention;
		this.retentionMillis = String.valueOf(fenceRetention.toMillis());
		this.queueStayMillis = String.valueOf(RedisAcquisition.QUEUE_STAY.toMillis());
		this.replicaAcks = replicaAcks;
	}

	/**
	 * {@code acquire.lua}: {1, fence} taken, {2, fence} already ours, {0, holder's PTTL} refused. A grant is
	 * acknowledged by the replicas before it is returned (see {@link #acknowledge}).
	 * @param queueStay how long a refused caller's queue entry stays valid, or zero for a single attempt that never
	 * queues (the 2-KEYS form)
	 * @param grantChannel where a release hands this caller the lock, or empty without pub/sub (the entry then only
	 * keeps new shared holders out)
	 */
	long[] acquire(LockRequest request, Duration queueStay, int attempt, String grantChannel) {
		long until = runner.deadline(request.lease());
		String lock = keys.lock(request.key());
		LeaseArgs lease = leaseArgs(request.lease());
		String[] redisKeys;
		String[] args;
		if (request.lockId() != null || request.noExpiry()) {
			index(List.of(request), until);
			redisKeys = new String[] { lock, lock + RedisKeys.FENCE, lock + RedisKeys.WAITING, lock + RedisKeys.QUEUE,
					lock + RedisKeys.WAITERS, lock + RedisKeys.IDS };
			args = new String[] { request.token(), lease.millis(), lease.fenceTtl(), request.owner().owner(),
					request.owner().host(), String.valueOf(queueStay.toMillis()), String.valueOf(attempt),
					grantChannel, request.lockId() != null ? request.lockId() : "", request.noExpiry() ? "1" : "0" };
		}
		else if (queueStay.isZero()) {
			redisKeys = new String[] { lock, lock + RedisKeys.FENCE };
			args = new String[] { request.token(), lease.millis(), lease.fenceTtl(), request.owner().owner(),
					request.owner().host() };
		}
		else {
			redisKeys = new String[] { lock, lock + RedisKeys.FENCE, lock + RedisKeys.WAITING, lock + RedisKeys.QUEUE,
					lock + RedisKeys.WAITERS };
			args = new String[] { request.token(), lease.millis(), lease.fenceTtl(), request.owner().owner(),
					request.owner().host(), String.valueOf(queueStay.toMillis()), String.valueOf(attempt),
					grantChannel };
		}
		List<?> reply = runner.run(RedisScripts.ACQUIRE, redisKeys, args, until);
		long[] result = { number(reply, 0), number(reply, 1) };
		if (result[0] != 0) {
			acknowledge(lock, request, until);
		}
		return result;
	}

	/**
	 * {@code acquire-all.lua}: {1, fence per request...} or {0, PTTL of the first blocking lock}; acknowledged by the
	 * replicas as {@link #acquire} is. A shared request is refused while an exclusive waiter is queued for its key.
	 * @param willWait whether a refused caller waits for a release message (then the blocking lock is marked, so its
	 * release publishes one)
	 */
	long[] acquireAll(List<LockRequest> requests, boolean willWait) {
		String[] redisKeys = new String[requests.size() * 6];
		String[] args = new String[requests.size() * 8 + 2];
		Duration shortest = requests.get(0).lease();
		for (int i = 0; i < requests.size(); i++) {
			LockRequest request = requests.get(i);
			String lock = keys.lock(request.key());
			redisKeys[6 * i] = lock;
			redisKeys[6 * i + 1] = lock + RedisKeys.FENCE;
			redisKeys[6 * i + 2] = lock + RedisKeys.WAITING;
			redisKeys[6 * i + 3] = lock + RedisKeys.QUEUE;
			redisKeys[6 * i + 4] = lock + RedisKeys.WAITERS;
			redisKeys[6 * i + 5] = lock + RedisKeys.IDS;
			args[8 * i] = request.token();
			args[8 * i + 1] = millis(request.lease());
			args[8 * i + 2] = request.shared() ? "1" : "0";
			// maxConcurrent -1 is unlimited
			args[8 * i + 3] = String.valueOf(!request.shared() ? 1
					: request.maxConcurrent() < 0 ? Integer.MAX_VALUE : request.maxConcurrent());
			args[8 * i + 4] = request.owner().owner();
			args[8 * i + 5] = request.owner().host();
			args[8 * i + 6] = request.lockId() != null ? request.lockId() : "";
			args[8 * i + 7] = request.noExpiry() ? "1" : "0";
			shortest = request.lease().compareTo(shortest) < 0 ? request.lease() : shortest;
		}
		args[args.length - 2] = retentionMillis;
		args[args.length - 1] = willWait && pubSub.equals("1") ? queueStayMillis : "0";
		long until = runner.deadline(shortest);
		index(requests, until);
		List<?> reply = runner.run(RedisScripts.ACQUIRE_ALL, redisKeys, args, until);
		long[] result = new long[reply == null ? 0 : reply.size()];
		for (int i = 0; i < result.length; i++) {
			result[i] = number(reply, i);
		}
		if (result.length < 2) {
			throw new IllegalStateException("Unexpected script result " + reply);
		}
		if (result[0] == 1 && replicaAcks > 0) {
			try {
				awaitReplicas(redisKeys[0], until);
			}
			catch (RuntimeException ex) {
				requests.forEach(this::cleanUp);
				throw ex;
			}
		}
		return result;
	}

	/**
	 * {@code release.lua} or {@code release-shared.lua}: whether this token held the lock (now or on an earlier run).
	 * A lock taken under a lock ID also drops its record, then its entry in the ID's index (a second call, as the
	 * index may be in another slot; a crash between leaves an entry that unlock and renew by ID drop).
	 */
	boolean release(String key, String token, boolean shared, Duration lease, @Nullable String lockId) {
		return release(key, token, shared, lease, lockId, false);
	}

	/**
	 * A release by lock ID: as {@link #release(String, String, boolean, Duration, String)}, but the holder's own later
	 * release of the same token reports the lock lost.
	 */
	boolean releaseById(String key, String token, boolean shared, String lockId) {
		return release(key, token, shared, runner.timeout(), lockId, true);
	}

	private boolean release(String key, String token, boolean shared, Duration lease, @Nullable String lockId,
			boolean byId) {
		long until = runner.deadline(lease);
		String lock = keys.lock(key);
		Long released = shared
				? runner.run(RedisScripts.RELEASE_SHARED,
						lockId == null ? new String[] { lock, lock + RedisKeys.FENCE }
								: new String[] { lock, lock + RedisKeys.FENCE, lock + RedisKeys.IDS },
						new String[] { token, pubSub.equals("1") ? lock + RedisKeys.RELEASED : "", byId ? "1" : "0" },
						until)
				: runner.run(RedisScripts.RELEASE,
						new String[] { lock, lock + RedisKeys.FENCE, lock + RedisKeys.WAITING, lock + RedisKeys.QUEUE,
								lock + RedisKeys.WAITERS, lock + RedisKeys.IDS },
						new String[] { token, pubSub, retentionMillis, queueStayMillis,
								byId ? "2" : lockId != null ? "1" : "0" },
						until);
		if (lockId != null) {
			unindex(lockId, List.of(member(token, key)), until);
		}
		return released != null && released == 1;
	}

	/**
	 * Writes the members of requests with a lock ID to their IDs' indexes, before the grant: a crash after it leaves
	 * an entry without a lock (dropped by the next unlock or renew by ID), never a lock its ID cannot find. A request
	 * without a lock ID costs nothing here. The index lives as long as the lease plus the queue stay (a hand-off may
	 * grant that long after the attempt), or for ever for a lock without expiry.
	 */
	private void index(List<LockRequest> requests, long until) {
		for (LockRequest request : requests) {
			if (request.lockId() == null) {
				continue;
			}
			List<LockRequest> same = requests.stream()
				.filter(other -> request.lockId().equals(other.lockId()))
				.toList();
			if (same.get(0) != request) {
				continue; // written with the first request of its ID
			}
			boolean forever = same.stream().anyMatch(LockRequest::noExpiry);
			// As long as the ids records (the retention, never less than the lease), so renew can report expired ones.
			long ttl = Math.max(retention.toMillis(),
					same.stream().mapToLong(other -> other.lease().toMillis()).max().orElse(0))
					+ RedisAcquisition.QUEUE_STAY.toMillis();
			String[] args = new String[same.size() + 1];
			args[0] = forever ? "-1" : String.valueOf(ttl);
			for (int i = 0; i < same.size(); i++) {
				args[i + 1] = member(same.get(i).token(), same.get(i).key());
			}
			runner.run(RedisScripts.INDEX, new String[] { keys.index(request.lockId()) }, args, until);
		}
	}

	/**
	 * Makes a lock ID's index live at least {@code ttl} (never less than the retention) plus the queue stay more; a
	 * persistent one stays so.
	 */
	void extendIndex(String lockId, Duration ttl, long until) {
		runner.run(RedisScripts.INDEX, new String[] { keys.index(lockId) },
				new String[] { String.valueOf(Math.max(ttl.toMillis(), retention.toMillis())
						+ RedisAcquisition.QUEUE_STAY.toMillis()) }, until);
	}

	/** Removes members from a lock ID's index. */
	void unindex(String lockId, List<String> members, long until) {
		if (!members.isEmpty()) {
			runner.unindex(keys.index(lockId), members, until);
		}
	}

	/** The index entry of one lock: its owner token (no spaces), a space, its key. */
	static String member(String token, String key) {
		return token + " " + key;
	}

	/**
	 * The members of a lock ID, newest first.
	 */
	List<String> members(String lockId) {
		return runner.newestFirst(keys.index(lockId), runner.deadline(runner.timeout()));
	}

	/**
	 * {@code id-member.lua}: one member's details, renewed to {@code ttl} when above zero, or its record dropped if
	 * no longer held when {@code ttl} is negative; null when the store has no record of the token under the ID.
	 */
	@Nullable IdMember idMember(String key, String token, String lockId, long ttlMillis) {
		String lock = keys.lock(key);
		List<?> reply = runner.run(RedisScripts.ID_MEMBER, new String[] { lock, lock + RedisKeys.FENCE,
				lock + RedisKeys.IDS }, new String[] { token, lockId, String.valueOf(ttlMillis) },
				runner.deadline(runner.timeout()));
		if (reply == null || reply.isEmpty() || "-1".equals(String.valueOf(reply.get(0)))) {
			return null;
		}
		return new IdMember(key, token, "1".equals(reply.get(0)), "s".equals(reply.get(1)),
				(String) reply.get(2), (String) reply.get(3), Long.parseLong((String) reply.get(4)),
				(String) reply.get(5), Long.parseLong((String) reply.get(6)), (String) reply.get(7),
				Long.parseLong((String) reply.get(8)));
	}

	/**
	 * One lock of a lock ID as {@code id-member.lua} saw it.
	 * @param held whether the token still held it (and, for a renewal, now has the new lease)
	 * @param ttlMillis the lease set at the grant or the last renewal, -1 for none
	 * @param remainingMillis the time left, -1 for no expiry
	 */
	record IdMember(String key, String token, boolean held, boolean shared, String owner, String host, long fence,
			String createdAt, long ttlMillis, String renewedAt, long remainingMillis) {
	}

	/**
	 * {@code extend.lua} or {@code extend-shared.lua}: whether this token still held the lock. With replica acks, an
	 * extension the replicas did not acknowledge in time throws a store error: the lock stays held on the master under
	 * its earlier lease, and the caller's local lease is not extended (a renewal tries again on its next tick).
	 */
	boolean extend(String key, String token, boolean shared, Duration lease, @Nullable String lockId) {
		long until = runner.deadline(lease);
		String lock = keys.lock(key);
		boolean held;
		if (lockId != null) {
			// The index first, so it never ends before the lock; then the lease and the record's TTL in one script.
			extendIndex(lockId, lease, until);
			IdMember member = idMember(key, token, lockId, Math.max(1, lease.toMillis()));
			held = member != null && member.held();
		}
		else {
			Long extended = runner.run(shared ? RedisScripts.EXTEND_SHARED : RedisScripts.EXTEND,
					new String[] { lock }, new String[] { token, millis(lease) }, until);
			held = extended != null && extended == 1;
		}
		if (held && replicaAcks > 0) {
			awaitReplicas(lock, until);
		}
		return held;
	}

	/** {@code force-release.lua}: whether a lock was removed. */
	boolean forceRelease(String key) {
		String lock = keys.lock(key);
		Long removed = runner.run(RedisScripts.FORCE_RELEASE, new String[] { lock },
				new String[] { pubSub.equals("1") ? lock + RedisKeys.RELEASED : "" },
				runner.deadline(runner.timeout()));
		return removed != null && removed == 1;
	}

	/**
	 * Makes sure a caller that has gone holds nothing: withdraws its queue entry and releases a lock held under its
	 * token (a hand-off it never took, or an acquire whose reply it never got). Runs with the interrupt flag cleared;
	 * if Redis cannot be reached, tries again in the background until the lease has passed, after which Redis has
	 * let the lock go by itself. Never throws.
	 */
	void cleanUp(LockRequest request) {
		long until = System.nanoTime() + request.lease().toNanos();
		Interrupts.uninterruptibly(() -> cleanUpOnce(request.key(), request.token(), request.shared(),
				request.lease(), request.lockId(), until));
	}

	private void cleanUpOnce(String key, String token, boolean shared, Duration lease, @Nullable String lockId,
			long untilNanos) {
		try {
			if (shared) {
				release(key, token, true, lease, lockId);
			}
			else if (withdraw(key, token, lease)) {
				release(key, token, false, lease, lockId);
			}
			else if (lockId != null) {
				unindex(lockId, List.of(member(token, key)), runner.deadline(lease));
			}
		}
		catch (RuntimeException ex) {
			if (System.nanoTime() - untilNanos >= 0) {
				logger.debug("Gave up cleaning up lock '" + key + "': its lease has passed", ex);
				return;
			}
			logger.debug("Could not clean up lock '" + key + "' yet; trying again", ex);
			CompletableFuture.runAsync(() -> cleanUpOnce(key, token, shared, lease, lockId, untilNanos),
					CompletableFuture.delayedExecutor(CLEANUP_RETRY.toMillis(), TimeUnit.MILLISECONDS));
		}
	}

	private boolean withdraw(String key, String token, Duration lease) {
		String lock = keys.lock(key);
		Long held = runner.run(RedisScripts.WITHDRAW,
				new String[] { lock, lock + RedisKeys.QUEUE, lock + RedisKeys.WAITERS }, new String[] { token },
				runner.deadline(lease));
		return held != null && held == 1;
	}

	/**
	 * With replica acks on, waits until enough replicas have the grant just written on this connection; a grant they
	 * did not acknowledge by the deadline is released by owner token and reported as a store error, never as held.
	 */
	private void acknowledge(String lock, LockRequest request, long until) {
		if (replicaAcks == 0) {
			return;
		}
		try {
			awaitReplicas(lock, until);
		}
		catch (RuntimeException ex) {
			cleanUp(request);
			throw ex;
		}
	}

	private void awaitReplicas(String lock, long until) {
		long start = System.nanoTime();
		long acknowledged = runner.awaitReplicas(lock, replicaAcks, until);
		if (acknowledged < replicaAcks) {
			throw new LockStoreException(null, "not acknowledged by " + replicaAcks + " replica(s) within "
					+ TimeUnit.NANOSECONDS.toMillis(Math.max(0, until - start)) + " ms ("
					+ (acknowledged < 0 ? "no answer to WAIT in time" : acknowledged + " did") + ")", null);
		}
	}

	private LeaseArgs leaseArgs(Duration lease) {
		LeaseArgs last = lastLease;
		if (!last.lease().equals(lease)) {
			last = new LeaseArgs(lease, millis(lease), String.valueOf(Math.max(retention.toMillis(), lease.toMillis())));
			lastLease = last;
		}
		return last;
	}

	/**
	 * Whether grants wait for replica acknowledgement: then a hand-off is taken by a round trip that writes on this
	 * client's connection (acquire.lua's "already yours"), so a WAIT covers it.
	 */
	boolean acknowledges() {
		return replicaAcks > 0;
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

	/**
	 * A lease's ARGV: its milliseconds, and the fence hash's TTL for it (the retention, never less than the lease).
	 */
	private record LeaseArgs(Duration lease, String millis, String fenceTtl) {
	}

}
