package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.LockStoreException;
import dev.distlock.core.spi.LockRequest;

/**
 * The one place that knows the KEYS and ARGV layout of the scripts that take and keep a lock: {@code acquire.lua},
 * {@code acquire-all.lua}, {@code extend.lua} and {@code extend-shared.lua} (the Lua headers say the same from the
 * other side). Also the deadline of each call (the lease it serves, with the floor and cap of {@link ScriptRunner#deadline}), and
 * the replica
 * acknowledgement of grants and extensions ({@code WAIT}) when {@code replicaAcks} is above 0. Releases are
 * {@link ReleaseScripts}'s, the withdrawal of a caller that has gone is {@link UnknownGrants}'s, and a lock ID's index
 * and records are {@link RedisLockIds}'s.
 */
final class LockScripts {

	private final ScriptRunner runner;

	private final RedisKeys keys;

	private final RedisLockIds ids;

	private final ReleaseScripts releases;

	private final UnknownGrants unknownGrants;

	private final boolean pubSub;

	private final Duration retention;

	private final String retentionMillis;

	private final String queueStayMillis;

	private final int replicaAcks;

	/** The last lease's ARGV strings: most callers use one lease, so each call need not format it again. */
	private volatile LeaseArgs lastLease = new LeaseArgs(Duration.ZERO, "1", "1");

	LockScripts(ScriptRunner runner, RedisKeys keys, RedisLockIds ids, ReleaseScripts releases, boolean pubSub,
			Duration fenceRetention, int replicaAcks) {
		this.runner = runner;
		this.keys = keys;
		this.ids = ids;
		this.releases = releases;
		this.unknownGrants = new UnknownGrants(releases);
		this.pubSub = pubSub;
		this.retention = fenceRetention;
		this.retentionMillis = String.valueOf(fenceRetention.toMillis());
		this.queueStayMillis = String.valueOf(RedisKeys.QUEUE_STAY.toMillis());
		this.replicaAcks = replicaAcks;
	}

	/**
	 * The release side, for the leases these scripts grant.
	 */
	ReleaseScripts releases() {
		return releases;
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
		RedisKeys.OfLock key = keys.of(request.key());
		LeaseArgs lease = request.noExpiry() ? provisional(until) : leaseArgs(request.lease());
		String[] redisKeys;
		String[] args;
		if (request.lockId() != null || request.noExpiry()) {
			ids.index(List.of(request), until);
			redisKeys = new String[] { key.lock(), key.fence(), key.waiting(), key.queue(), key.waiters(), key.ids() };
			args = new String[] { request.token(), lease.millis(), lease.fenceTtl(), request.owner().owner(),
					request.owner().host(), String.valueOf(queueStay.toMillis()), String.valueOf(attempt),
					grantChannel, request.lockId() != null ? request.lockId() : "", request.noExpiry() ? "1" : "0" };
		}
		else if (queueStay.isZero()) {
			redisKeys = new String[] { key.lock(), key.fence() };
			args = new String[] { request.token(), lease.millis(), lease.fenceTtl(), request.owner().owner(),
					request.owner().host() };
		}
		else {
			redisKeys = new String[] { key.lock(), key.fence(), key.waiting(), key.queue(), key.waiters() };
			args = new String[] { request.token(), lease.millis(), lease.fenceTtl(), request.owner().owner(),
					request.owner().host(), String.valueOf(queueStay.toMillis()), String.valueOf(attempt),
					grantChannel };
		}
		List<?> reply = runner.run(RedisScripts.ACQUIRE, redisKeys, args, until);
		long[] result = { number(reply, 0), number(reply, 1) };
		if (result[0] != 0 && request.noExpiry() && !lasting(List.of(request), request.lease())) {
			// Lost between the grant and this call (its provisional lease ran out, or it was unlocked by ID): refused.
			result = new long[] { 0, 0 };
		}
		if (result[0] != 0) {
			acknowledge(key.lock(), request, until);
		}
		else if (request.lockId() != null && queueStay.isZero()) {
			// Refused and not queued: this token is never granted, so its index entry goes now, not after the grace.
			ids.unindex(request.lockId(), request.token(), request.key(), until);
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
		String[] redisKeys = new String[requests.size() * 7];
		String[] args = new String[requests.size() * 8 + 2];
		Duration shortest = requests.stream().map(LockRequest::lease).min(Duration::compareTo).orElseThrow();
		long until = runner.deadline(shortest);
		String provisional = requests.stream().anyMatch(LockRequest::noExpiry) ? provisional(until).millis() : "";
		for (int i = 0; i < requests.size(); i++) {
			LockRequest request = requests.get(i);
			RedisKeys.OfLock key = keys.of(request.key());
			redisKeys[7 * i] = key.lock();
			redisKeys[7 * i + 1] = key.fence();
			redisKeys[7 * i + 2] = key.waiting();
			redisKeys[7 * i + 3] = key.queue();
			redisKeys[7 * i + 4] = key.waiters();
			redisKeys[7 * i + 5] = key.ids();
			redisKeys[7 * i + 6] = key.holders();
			args[8 * i] = request.token();
			args[8 * i + 1] = request.noExpiry() ? provisional : millis(request.lease());
			args[8 * i + 2] = request.shared() ? "1" : "0";
			// maxConcurrent -1 is unlimited
			args[8 * i + 3] = String.valueOf(!request.shared() ? 1
					: request.maxConcurrent() < 0 ? Integer.MAX_VALUE : request.maxConcurrent());
			args[8 * i + 4] = request.owner().owner();
			args[8 * i + 5] = request.owner().host();
			args[8 * i + 6] = request.lockId() != null ? request.lockId() : "";
			args[8 * i + 7] = request.noExpiry() ? "1" : "0";
		}
		args[args.length - 2] = retentionMillis;
		args[args.length - 1] = willWait && pubSub ? queueStayMillis : "0";
		ids.index(requests, until);
		List<?> reply = runner.run(RedisScripts.ACQUIRE_ALL, redisKeys, args, until);
		long[] result = new long[reply == null ? 0 : reply.size()];
		for (int i = 0; i < result.length; i++) {
			result[i] = number(reply, i);
		}
		if (result.length < 2) {
			throw new LockStoreException(null, "Unexpected script result " + reply, null);
		}
		List<LockRequest> forever = requests.stream().filter(LockRequest::noExpiry).toList();
		if (result[0] == 1 && !forever.isEmpty() && !lasting(forever, shortest)) {
			// One was lost between the grant and this call: the group is refused, so the others are let go.
			requests.forEach(this::cleanUp);
			result = new long[] { 0, 0 };
		}
		if (result[0] == 0 && !willWait) {
			// Refused, no further attempt with these tokens: their index entries go now, not after the grace.
			for (LockRequest request : requests) {
				if (request.lockId() != null) {
					ids.unindex(request.lockId(), request.token(), request.key(), until);
				}
			}
		}
		if (result[0] == 1 && replicaAcks > 0) {
			try {
				awaitReplicas(redisKeys[0], until);
			}
			catch (RuntimeException ex) {
				requests.forEach(this::cleanUp);
				if (requests.stream().anyMatch(LockRequest::noExpiry)) {
					awaitReleaseQuietly(redisKeys[0], shortest);
				}
				throw ex;
			}
		}
		return result;
	}

	/**
	 * {@code lasting.lua}: makes the provisional grants of requests without expiry lasting, now that their caller has
	 * the reply (all in one slot). Its own call deadline, never below a healthy round trip: one that runs after the
	 * provisional lease finds the lock gone and changes nothing. Whether every one was still held under its token.
	 */
	private boolean lasting(List<LockRequest> forever, Duration nominal) {
		long until = runner.deadline(nominal);
		String[] redisKeys = new String[forever.size() * 4];
		String[] args = new String[forever.size() * 2];
		for (int i = 0; i < forever.size(); i++) {
			RedisKeys.OfLock key = keys.of(forever.get(i).key());
			redisKeys[4 * i] = key.lock();
			redisKeys[4 * i + 1] = key.fence();
			redisKeys[4 * i + 2] = key.ids();
			redisKeys[4 * i + 3] = key.holders();
			args[2 * i] = forever.get(i).token();
			args[2 * i + 1] = forever.get(i).lockId() != null ? forever.get(i).lockId() : "";
		}
		List<?> reply = runner.run(RedisScripts.LASTING, redisKeys, args, until);
		for (int i = 0; i < forever.size(); i++) {
			if (number(reply, i) != 1) {
				return false;
			}
		}
		return true;
	}

	/**
	 * The provisional lease of a grant without expiry: twice the attempt's bound (what is left of its deadline), so
	 * the caller has time to make it lasting once the reply is in, and a grant whose reply nobody got ends by itself.
	 */
	private LeaseArgs provisional(long until) {
		Duration lease = Duration.ofMillis(Math.max(1, TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime()) * 2));
		return new LeaseArgs(lease, millis(lease), String.valueOf(Math.max(retention.toMillis(), lease.toMillis())));
	}

	/**
	 * {@code extend.lua} or {@code extend-shared.lua}: whether this token still held the lock. With replica acks, an
	 * extension the replicas did not acknowledge in time throws a store error: the lock stays held on the master under
	 * its earlier lease, and the caller's local lease is not extended (a renewal tries again on its next tick).
	 */
	boolean extend(String key, String token, boolean shared, Duration lease, @Nullable String lockId) {
		long until = runner.deadline(lease);
		RedisKeys.OfLock redisKeys = keys.of(key);
		boolean held;
		if (lockId != null) {
			held = ids.extend(key, token, lockId, lease, until);
		}
		else {
			Long extended = shared
					? runner.run(RedisScripts.EXTEND_SHARED,
							new String[] { redisKeys.lock(), redisKeys.fence(), redisKeys.holders() },
							new String[] { token, millis(lease), retentionMillis }, until)
					: runner.run(RedisScripts.EXTEND, new String[] { redisKeys.lock(), redisKeys.fence() },
							new String[] { token, millis(lease), retentionMillis }, until);
			held = extended != null && extended == 1;
		}
		if (held && replicaAcks > 0) {
			awaitReplicas(redisKeys.lock(), until);
		}
		return held;
	}

	/**
	 * {@code held.lua}: whether this token holds the lock now, without touching its TTL (the holder check of a lock
	 * without expiry). Bounded by the command timeout, never below a healthy round trip.
	 */
	boolean held(String key, String token) {
		Long held = runner.run(RedisScripts.HELD, new String[] { keys.lock(key) }, new String[] { token },
				runner.deadline(Duration.ofDays(1)));
		return held != null && held == 1;
	}

	/**
	 * Makes sure a caller that has gone holds nothing: its queue entry withdrawn, a lock held under its token released
	 * (see {@link UnknownGrants}). Never throws.
	 */
	void cleanUp(LockRequest request) {
		unknownGrants.release(request);
	}

	/**
	 * Stops the background retries of cleanups ({@link UnknownGrants#close}).
	 */
	void close() {
		unknownGrants.close();
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
			if (request.noExpiry()) {
				awaitReleaseQuietly(lock, request.lease());
			}
			throw ex;
		}
	}

	/**
	 * After releasing a grant without expiry the replicas did not acknowledge, gives the release the same chance to
	 * reach them (a WAIT on the connection that sent it), so a failover is less likely to keep a grant that would never
	 * expire (a leased one expires by itself); best effort, never throws.
	 */
	private void awaitReleaseQuietly(String lock, Duration lease) {
		try {
			runner.awaitReplicas(lock, replicaAcks, runner.deadline(lease));
		}
		catch (RuntimeException ex) {
			// the grant's own error is what the caller hears
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
		if (result == null || result.size() <= index || !(result.get(index) instanceof Number number)) {
			throw new LockStoreException(null, "Unexpected script result " + result, null);
		}
		return number.longValue();
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
