package dev.distlock.redis;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.output.ValueOutput;
import io.lettuce.core.protocol.CommandType;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.distlock.core.LockStoreException;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.LockRequest;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ZSetOperations;

/**
 * The provider's calls on Redis, and the one place that knows the KEYS and ARGV layout of the lock scripts (the Lua
 * headers say the same from the other side): {@code acquire.lua}, {@code acquire-all.lua}, {@code lasting.lua},
 * {@code held.lua}, {@code extend.lua} and {@code extend-shared.lua} take and keep a lock; {@code release.lua} (an
 * exclusive lock, handed to the oldest live waiter when one is queued), {@code release-shared.lua} (one shared place)
 * and {@code force-release.lua} (whoever holds it) let it go. Without fencing tokens, a plain exclusive lock is taken
 * by one plain {@code SET NX GET} instead of a script ({@link #acquireLean}) and let go by {@code release.lua}'s lean
 * form. The scripts' sources and SHAs are {@link LuaSources}'s;
 * a lock ID's index and records are {@link RedisLockIds}'s, which runs its scripts through this class; the cleanup of
 * a caller that has gone is {@link OrphanedGrantCleanup}'s.
 * <p>With a Lettuce factory the scripts go over one dedicated connection of the factory's own client (standalone,
 * Sentinel or cluster), EVALSHA first and EVAL once on NOSCRIPT: a Spring template call costs a new connection
 * wrapper, serializers and transaction-synchronisation lookups per call, which was half the client CPU of an
 * uncontended cycle; the arguments of each call are written by {@link ScriptArguments}. Other factories, and a Lettuce
 * client without a default URI, go through the template.
 * <p>Every call on the dedicated connection has its own deadline: the lease it serves, never below a healthy round trip
 * on a loaded machine ({@link #MIN_DEADLINE}) nor above the command timeout, enforced by the call's own wait (the
 * connection runs no Lettuce timer per command: the wait ends a command that missed its deadline, so a command queued
 * while disconnected is never sent after its caller gave up). A call that misses it throws; the command
 * may still run on the server later, which is why callers clean up by owner token after a failed acquire, and a grant
 * that arrives after its lease has passed is released, not handed out. Grants and extensions wait for replica
 * acknowledgement ({@code WAIT}) when {@code replicaAcks} is above 0; releases never do: a release lost in a failover
 * leaves the lock to expire with its lease, the safe direction.
 */
final class LockScripts implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LockScripts.class);

	private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

	/**
	 * The shortest call deadline, whatever the lease: a loaded machine (a GC pause, a busy CPU) can stretch a healthy
	 * round trip to hundreds of milliseconds, and a deadline below that would report a healthy store as failed. A grant
	 * that arrives after its lease has passed is released by the caller (the core's ran-out path, or the cleanup of an
	 * attempt that got no answer), so a call may outlive a shorter lease safely.
	 */
	static final Duration MIN_DEADLINE = Duration.ofSeconds(2);

	/** {@link #release}'s answer for a lean lock whose key was gone. */
	static final long GONE = -1;

	/** The numbers of the first queued attempts as ARGV strings: most acquisitions queue a few times at most. */
	private static final String[] ATTEMPTS = { "0", "1", "2", "3", "4", "5", "6", "7" };

	private final StringRedisTemplate template;

	private final @Nullable LettuceConnectionFactory lettuce;

	private final Duration timeout;

	private final Object connectionLock = new Object();

	private volatile @Nullable RedisClusterAsyncCommands<String, String> commands;

	private volatile @Nullable StatefulConnection<String, String> connection;

	private volatile boolean templateOnly;

	private final RedisKeys keys;

	private final RedisLockIds ids;

	private final OrphanedGrantCleanup cleanup;

	private final boolean pubSub;

	/** {@code release.lua}'s ARGV[2]: '1' when this client tells waiters over pub/sub (and hands off), else '0'. */
	private final String handsOff;

	private final Duration retention;

	private final String retentionMillis;

	private final String queueStayMillis;

	/**
	 * How long the fence hash's list of recent shared releases keeps one: twice the command timeout, at least 10 s.
	 * Lettuce replays an unanswered command after a reconnect while the caller still waits for it, so within the
	 * command timeout.
	 */
	private final String replayWindowMillis;

	private final int replicaAcks;

	/** Whether plain exclusive locks get fencing tokens; without, they are taken and released lean. */
	private final boolean fencing;

	/** The last lease's ARGV strings: most callers use one lease, so each call need not format it again. */
	private volatile LeaseArgs lastLease = new LeaseArgs(Duration.ZERO, "1", "1");

	/** The last holder's ARGV: most callers lock under one owner, so each call need not join the names again. */
	private volatile HolderArg lastHolder = new HolderArg(new OwnerDetails("-", "-"), "-\n-");

	/**
	 * Calls on the factory; the command timeout is the Lettuce client's, or 5 s for another factory.
	 * @param pubSub whether this client tells waiters over pub/sub (and so hands a released lock to a queued waiter)
	 * @param fencing whether plain exclusive locks get fencing tokens ({@link RedisLockSettings#fencing()})
	 */
	LockScripts(RedisConnectionFactory factory, StringRedisTemplate template, RedisKeys keys, boolean pubSub,
			Duration fenceRetention, int replicaAcks, boolean fencing) {
		this.template = template;
		this.lettuce = factory instanceof LettuceConnectionFactory lettuceFactory ? lettuceFactory : null;
		this.templateOnly = lettuce == null;
		this.timeout = lettuce != null ? lettuce.getClientConfiguration().getCommandTimeout() : DEFAULT_TIMEOUT;
		this.keys = keys;
		this.pubSub = pubSub;
		this.handsOff = pubSub ? "1" : "0";
		this.retention = fenceRetention;
		this.retentionMillis = String.valueOf(fenceRetention.toMillis());
		this.queueStayMillis = String.valueOf(RedisKeys.QUEUE_STAY.toMillis());
		this.replayWindowMillis = String.valueOf(Math.max(timeout.multipliedBy(2).toMillis(), 10_000));
		this.replicaAcks = replicaAcks;
		this.fencing = fencing;
		this.ids = new RedisLockIds(this, keys, fenceRetention);
		this.cleanup = new OrphanedGrantCleanup(this);
	}

	/**
	 * Lock IDs: their index and records, on these calls.
	 */
	RedisLockIds ids() {
		return ids;
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
		long until = deadline(request.lease());
		RedisKeys.OfLock key = keys.of(request.key());
		LeaseArgs lease = request.noExpiry() ? provisional(until) : leaseArgs(request.lease());
		Object[] redisKeys;
		String[] args;
		if (request.lockId() != null || request.noExpiry()) {
			ids.index(List.of(request), until);
			redisKeys = key.scriptKeys(6);
			args = new String[] { request.token(), lease.millis(), lease.fenceTtl(), holder(request.owner()),
					stayMillis(queueStay), grantChannel, attemptArg(attempt),
					request.lockId() != null ? request.lockId() : "", request.noExpiry() ? "1" : "0" };
		}
		else if (queueStay.isZero()) {
			redisKeys = key.scriptKeys(2);
			args = new String[] { request.token(), lease.millis(), lease.fenceTtl(), holder(request.owner()) };
		}
		else if (attempt == 0) {
			// The first queued attempt leaves its number out (the script reads '0'): one argument fewer on the server.
			redisKeys = key.scriptKeys(5);
			args = new String[] { request.token(), lease.millis(), lease.fenceTtl(), holder(request.owner()),
					stayMillis(queueStay), grantChannel };
		}
		else {
			redisKeys = key.scriptKeys(5);
			args = new String[] { request.token(), lease.millis(), lease.fenceTtl(), holder(request.owner()),
					stayMillis(queueStay), grantChannel, attemptArg(attempt) };
		}
		List<?> reply = run(LuaSources.ACQUIRE, redisKeys, args, until);
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
	 * Whether the request is taken and released lean: fencing is off and it is a plain exclusive lock (no lock ID,
	 * with expiry, not shared). A group goes through {@link #acquireAll}, unless its keys span cluster slots: then it is
	 * taken key by key as plain locks ({@link RedisLockProvider#tryAcquireAll}).
	 */
	boolean lean(LockRequest request) {
		return lean(request.shared(), request.lockId(), request.noExpiry());
	}

	private boolean lean(boolean shared, @Nullable String lockId, boolean noExpiry) {
		return !fencing && !shared && lockId == null && !noExpiry;
	}

	/**
	 * The acquire of a lean request ({@link #lean}): one plain {@code SET <lock> <token> NX GET PX <lease ms>}, no
	 * script (Redis 7.0 or later). {1, 0} taken (the old value was nil); {2, 0} already ours (the old value is our
	 * token: a replay of this very command after a reconnect, whose lease began at its first run, after the caller
	 * started counting); {0, 0} refused (another token, or a shared lock's sorted set, where SET with GET answers
	 * WRONGTYPE). No fence hash and no holder details are written; the fencing token is 0. A grant is acknowledged
	 * by the replicas as {@link #acquire}'s is.
	 */
	long[] acquireLean(LockRequest request) {
		long until = deadline(request.lease());
		String lock = keys.lock(request.key());
		String old;
		try {
			old = setNxGet(lock, request.token(), leaseArgs(request.lease()).millis(), until);
		}
		catch (RuntimeException ex) {
			if (wrongType(ex)) {
				return new long[] { 0, 0 };
			}
			throw ex;
		}
		long answer = old == null ? 1 : old.equals(request.token()) ? 2 : 0;
		if (answer != 0) {
			acknowledge(lock, request, until);
		}
		return new long[] { answer, 0 };
	}

	/**
	 * {@code SET key value NX GET PX millis} on the lock-script connection (the arguments written as a script's are),
	 * or through the template; the key's old value, or null when it was set.
	 */
	private @Nullable String setNxGet(String key, String value, String millis, long untilNanos) {
		RedisClusterAsyncCommands<String, String> async = commands();
		if (async == null) {
			// A driver's raw reply: the old value's bytes (or, read as a status reply, its text), nil when set.
			Object old = template.execute((RedisCallback<Object>) connection -> connection.execute("SET", bytes(key),
					bytes(value), bytes("NX"), bytes("GET"), bytes("PX"), bytes(millis)));
			return old == null ? null : old instanceof byte[] text ? new String(text, StandardCharsets.UTF_8)
					: old.toString();
		}
		return (String) await(async.dispatch(CommandType.SET, new ValueOutput<>(StringCodec.UTF8),
				ScriptArguments.command(key, value, "NX", "GET", "PX", millis)), untilNanos);
	}

	/** Whether the error, or one of its causes, is Redis's WRONGTYPE. */
	private static boolean wrongType(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause.getMessage() != null && cause.getMessage().startsWith("WRONGTYPE")) {
				return true;
			}
		}
		return false;
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
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
		long until = deadline(shortest);
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
		List<?> reply = run(LuaSources.ACQUIRE_ALL, redisKeys, args, until);
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
		long until = deadline(nominal);
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
		List<?> reply = run(LuaSources.LASTING, redisKeys, args, until);
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
		long until = deadline(lease);
		RedisKeys.OfLock redisKeys = keys.of(key);
		boolean held;
		if (lockId != null) {
			held = ids.extend(key, token, lockId, lease, until);
		}
		else {
			Long extended = shared
					? run(LuaSources.EXTEND_SHARED,
							new String[] { redisKeys.lock(), redisKeys.fence(), redisKeys.holders() },
							new String[] { token, millis(lease), retentionMillis }, until)
					: run(LuaSources.EXTEND, new String[] { redisKeys.lock(), redisKeys.fence() },
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
		Long held = run(LuaSources.HELD, new String[] { keys.lock(key) }, new String[] { token },
				deadline(Duration.ofDays(1)));
		return held != null && held == 1;
	}

	/**
	 * Makes sure a caller that has gone holds nothing: its queue entry withdrawn, a lock held under its token released
	 * (see {@link OrphanedGrantCleanup}). Never throws.
	 */
	void cleanUp(LockRequest request) {
		cleanup.release(request);
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
			waitForReplicas(lock, replicaAcks, deadline(lease));
		}
		catch (RuntimeException ex) {
			// the grant's own error is what the caller hears
		}
	}

	private void awaitReplicas(String lock, long until) {
		long start = System.nanoTime();
		long acknowledged = waitForReplicas(lock, replicaAcks, until);
		if (acknowledged < replicaAcks) {
			throw new LockStoreException(null, "not acknowledged by " + replicaAcks + " replica(s) within "
					+ TimeUnit.NANOSECONDS.toMillis(Math.max(0, until - start)) + " ms ("
					+ (acknowledged < 0 ? "no answer to WAIT in time" : acknowledged + " did") + ")", null);
		}
	}

	/**
	 * Whether grants wait for replica acknowledgement: then a hand-off is taken by a round trip that writes on this
	 * client's connection (acquire.lua's "already yours"), so a WAIT covers it.
	 */
	boolean acknowledges() {
		return replicaAcks > 0;
	}

	/**
	 * {@code release.lua} or {@code release-shared.lua}: 1 when this token held the lock (now or on an earlier run), 0
	 * when it did not, and for a lean lock ({@link #lean}), which keeps no record of its release, {@link #GONE} when
	 * the key was gone. A lock taken under a lock ID also drops its record, then its entry in the ID's index (a second
	 * call, as the index may be in another slot; a crash between leaves an entry that unlock and renew by ID drop).
	 */
	long release(String key, String token, boolean shared, Duration lease, @Nullable String lockId,
			boolean noExpiry) {
		return release(key, token, shared, lease, lockId, false, noExpiry, false);
	}

	/**
	 * The cleanup of an exclusive caller that has gone: its queue entry is withdrawn and a lock held under its token
	 * released in the same script, so the cleanup needs no answer to take effect (sent while the server is paused, it
	 * runs right after the acquire it cleans up after). Whether the token held the lock.
	 */
	boolean withdrawAndRelease(String key, String token, Duration lease, @Nullable String lockId, boolean noExpiry) {
		return release(key, token, false, lease, lockId, false, noExpiry, true) == 1;
	}

	/**
	 * A release by lock ID: as {@link #release(String, String, boolean, Duration, String, boolean)}, but the holder's
	 * own later release of the same token reports the lock lost.
	 */
	boolean releaseById(String key, String token, boolean shared, String lockId) {
		return release(key, token, shared, timeout, lockId, true, true, false) == 1;
	}

	private long release(String key, String token, boolean shared, Duration lease, @Nullable String lockId,
			boolean byId, boolean noExpiry, boolean withdraw) {
		long until = deadline(lease);
		RedisKeys.OfLock redisKeys = keys.of(key);
		// The lean form (5 KEYS) writes no replay record, so a lean lock never gets a fence hash from its release.
		int keyCount = lean(shared, lockId, noExpiry) ? 5 : 6;
		Long released = shared
				? run(LuaSources.RELEASE_SHARED,
						new String[] { redisKeys.lock(), redisKeys.fence(), redisKeys.ids(), redisKeys.holders() },
						// Always published: waiters of other clients may rely on it, even if this client has no pub/sub.
						new String[] { token, redisKeys.released(), byId ? "1" : "0",
								retentionMillis, replayWindowMillis, lockId != null ? "1" : "0" },
						until)
				: run(LuaSources.RELEASE, redisKeys.scriptKeys(keyCount), lockId == null && !noExpiry && !withdraw
						// A plain lock's release leaves out the three '0's (the script reads them so).
						? new String[] { token, handsOff, retentionMillis, queueStayMillis }
						: new String[] { token, handsOff, retentionMillis, queueStayMillis,
								byId ? "2" : lockId != null ? "1" : "0", noExpiry ? "1" : "0", withdraw ? "1" : "0" },
						until);
		if (lockId != null) {
			ids.unindex(lockId, token, key, until);
		}
		return released != null ? released : 0;
	}

	/**
	 * {@code force-release.lua}: whether a lock was removed. The evicted holders' lock-ID records go with it, and then
	 * their entries in their IDs' indexes (one more call each, as an index may be in another slot).
	 */
	boolean forceRelease(String key) {
		RedisKeys.OfLock redisKeys = keys.of(key);
		long until = deadline(timeout);
		List<?> reply = run(LuaSources.FORCE_RELEASE,
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

	/**
	 * The deadline of a call serving a lease, from now: the lease, but never less than {@link #MIN_DEADLINE}, and
	 * never more than the command timeout. Opens the connection first if needed, so connecting does not eat the call's
	 * time (a failed connect throws here).
	 */
	long deadline(Duration lease) {
		commands();
		return System.nanoTime() + Math.min(Math.max(lease.toNanos(), MIN_DEADLINE.toNanos()), timeout.toNanos());
	}

	/**
	 * Runs the script on the keys with the arguments and returns its reply: a {@code List} of Longs and Strings or a
	 * Long, as the script's result type says.
	 * @param untilNanos when to stop waiting for the reply ({@link #deadline(Duration)})
	 * @throws LockStoreException if the reply does not come in time; an interrupt does not end the wait (the flag is
	 * set again afterwards)
	 */
	@SuppressWarnings("unchecked")
	<T> @Nullable T run(LuaSources.Script<T> script, Object[] keys, String[] args, long untilNanos) {
		RedisClusterAsyncCommands<String, String> async = commands();
		if (async == null) {
			// The derived keys' names are built only on this path.
			return template.execute(script.spring(), ScriptArguments.names(keys), (Object[]) args);
		}
		try {
			return (T) await(async.dispatch(CommandType.EVALSHA, output(script), new ScriptArguments(script.sha(), keys,
					args)), untilNanos);
		}
		catch (RedisNoScriptException ex) {
			// The server lost its script cache (restart, failover, SCRIPT FLUSH): EVAL caches it again.
			return (T) await(async.dispatch(CommandType.EVAL, output(script), new ScriptArguments(script.text(), keys,
					args)), untilNanos);
		}
	}

	/**
	 * A reply reader of the script's result type, as Lettuce's {@code evalsha} makes one; for {@code acquire.lua}'s
	 * flat pair of numbers, {@link PairReply}.
	 */
	private static CommandOutput<String, String, ?> output(LuaSources.Script<?> script) {
		if (script == LuaSources.ACQUIRE) {
			return new PairReply();
		}
		return script.output() == ScriptOutputType.MULTI ? new NestedMultiOutput<>(StringCodec.UTF8)
				: new IntegerOutput<>(StringCodec.UTF8);
	}

	/**
	 * The reader of {@code acquire.lua}'s reply, a flat array of two numbers: read into a list of two, without the
	 * stack for nested arrays and the list of default size that {@link NestedMultiOutput} makes for every reply (the
	 * most of what the client allocated for an acquire's reply). A script error fails the call as with any reader.
	 */
	private static final class PairReply extends CommandOutput<String, String, List<Object>> {

		PairReply() {
			super(StringCodec.UTF8, new ArrayList<>(2));
		}

		@Override
		public void set(long integer) {
			output.add(integer);
		}

		@Override
		public void set(@Nullable ByteBuffer bytes) {
			output.add(bytes == null ? null : codec.decodeValue(bytes));
		}

		@Override
		public void setSingle(@Nullable ByteBuffer bytes) {
			set(bytes);
		}

	}

	/**
	 * {@code ZREVRANGE key 0 -1 WITHSCORES} of each key (sent together, one round trip): the entries of a lock ID's
	 * index with their scores (write times, server microseconds), newest first across the keys.
	 */
	List<Map.Entry<String, Double>> newestFirst(List<String> indexKeys, long untilNanos) {
		RedisClusterAsyncCommands<String, String> async = commands();
		List<Map.Entry<String, Double>> entries = new ArrayList<>();
		if (async == null) {
			for (String indexKey : indexKeys) {
				Set<ZSetOperations.TypedTuple<String>> members = template.opsForZSet()
					.reverseRangeWithScores(indexKey, 0, -1);
				if (members != null) {
					members.forEach(member -> entries.add(Map.entry(member.getValue(), member.getScore())));
				}
			}
		}
		else {
			List<RedisFuture<List<ScoredValue<String>>>> replies = new ArrayList<>();
			for (String indexKey : indexKeys) {
				replies.add(async.zrevrangeWithScores(indexKey, 0, -1));
			}
			for (Object reply : awaitAll(replies, untilNanos)) {
				@SuppressWarnings("unchecked")
				List<ScoredValue<String>> members = (List<ScoredValue<String>>) reply;
				members.forEach(member -> entries.add(Map.entry(member.getValue(), member.getScore())));
			}
		}
		entries.sort(Map.Entry.<String, Double>comparingByValue().reversed());
		return entries;
	}

	/**
	 * {@code ZREM key members...} on each key (sent together, one round trip): drops entries from a lock ID's index.
	 */
	void unindex(List<String> indexKeys, List<String> members, long untilNanos) {
		RedisClusterAsyncCommands<String, String> async = commands();
		if (async == null) {
			indexKeys.forEach(indexKey -> template.opsForZSet().remove(indexKey, members.toArray()));
			return;
		}
		List<RedisFuture<Long>> replies = new ArrayList<>();
		for (String indexKey : indexKeys) {
			replies.add(async.zrem(indexKey, members.toArray(new String[0])));
		}
		awaitAll(replies, untilNanos);
	}

	/**
	 * Sends {@code WAIT replicas timeout} on the connection that ran this lock key's scripts (in a cluster, the
	 * connection to the key's master), so it covers every write sent on it so far, and returns how many replicas
	 * acknowledged them. The server-side timeout is nine tenths of what is left of the deadline (at least 1 ms, as 0
	 * would block for ever), so its answer normally arrives before the caller stops waiting; one that does not (a
	 * busy machine) counts as no acknowledgement.
	 * @return the replicas that acknowledged, or -1 when the answer did not come by the deadline
	 * @throws LockStoreException if the scripts run through the template, whose connection for a call is not known
	 */
	long waitForReplicas(String redisKey, int replicas, long untilNanos) {
		RedisClusterAsyncCommands<String, String> async = commands();
		if (async == null) {
			throw new LockStoreException(null, "Replica acknowledgement needs the provider's own Lettuce connection "
					+ "(a LettuceConnectionFactory whose client has a default URI, or a cluster)", null);
		}
		long waitMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(untilNanos - System.nanoTime()) * 9 / 10);
		BaseRedisAsyncCommands<String, String> target = async;
		StatefulConnection<String, String> open = connection;
		if (open instanceof StatefulRedisClusterConnection<String, String> cluster) {
			RedisURI master = cluster.getPartitions().getPartitionBySlot(SlotHash.getSlot(redisKey)).getUri();
			// Slot-routed commands use the node connection keyed by host and port: the same one EVALSHA went over.
			target = cluster.getConnection(master.getHost(), master.getPort()).async();
		}
		Object acknowledged;
		try {
			acknowledged = await(target.waitForReplication(replicas, waitMillis), untilNanos);
		}
		catch (LockStoreException ex) {
			if (ex.getCause() instanceof TimeoutException) {
				return -1;
			}
			throw ex;
		}
		return acknowledged instanceof Number number ? number.longValue() : 0;
	}

	/**
	 * Waits for each reply as {@link #await} does; when one fails, the others are ended too, so none is left for
	 * Lettuce to send or replay after its caller stopped waiting.
	 */
	private static List<Object> awaitAll(List<? extends RedisFuture<?>> replies, long untilNanos) {
		List<Object> results = new ArrayList<>(replies.size());
		try {
			for (RedisFuture<?> reply : replies) {
				results.add(await(reply, untilNanos));
			}
		}
		catch (RuntimeException ex) {
			replies.forEach(reply -> reply.toCompletableFuture().completeExceptionally(ex));
			throw ex;
		}
		return results;
	}

	/**
	 * Waits for the reply until the deadline, through interrupts: a lock command abandoned halfway could leave a lock
	 * granted to nobody, so an interrupt is kept for the caller to honour once the reply is in.
	 */
	private static Object await(RedisFuture<?> reply, long untilNanos) {
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return reply.get(Math.max(0, untilNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
			}
		}
		catch (TimeoutException ex) {
			// Lettuce's own per-command timer is off on this connection (see open()): this deadline is the command's,
			// so it is ended here as that timer would have ended it. A command ended before it was written (queued
			// while disconnected) is never sent, nor replayed after a reconnect, once its caller has stopped waiting.
			reply.toCompletableFuture().completeExceptionally(ex);
			throw new LockStoreException(null, "Redis did not answer in time", ex);
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof RuntimeException runtime) {
				throw runtime;
			}
			throw new LockStoreException(null, "Redis failed: " + ex.getCause(), ex.getCause());
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * The connection's command timeout, the longest any call waits.
	 */
	Duration timeout() {
		return timeout;
	}

	/**
	 * Stops the background retries of cleanups ({@link OrphanedGrantCleanup#close}) and closes the dedicated
	 * connection.
	 */
	@Override
	public void close() {
		closeAsync();
	}

	/**
	 * {@link #close()}, returning when the dedicated connection has closed.
	 */
	CompletableFuture<Void> closeAsync() {
		cleanup.close();
		StatefulConnection<String, String> open;
		synchronized (connectionLock) {
			templateOnly = true;
			commands = null;
			open = connection;
			connection = null;
		}
		return open == null ? CompletableFuture.completedFuture(null) : open.closeAsync();
	}

	private @Nullable RedisClusterAsyncCommands<String, String> commands() {
		RedisClusterAsyncCommands<String, String> sync = commands;
		if (sync != null || templateOnly) {
			return sync;
		}
		synchronized (connectionLock) {
			if (commands == null && !templateOnly) {
				open();
			}
			return commands;
		}
	}

	/**
	 * Opens the dedicated connection. Connection failures propagate (the caller turns them into a store error and the
	 * next call tries again); a client that cannot open connections by itself leaves the template in charge for good.
	 */
	private void open() {
		LettuceConnectionFactory factory = lettuce;
		if (factory == null) {
			templateOnly = true;
			return;
		}
		AbstractRedisClient client;
		try {
			client = factory.getRequiredNativeClient();
		}
		catch (IllegalStateException ex) {
			return; // factory not started yet: this call goes through the template, which starts or fails it
		}
		StatefulConnection<String, String> opened;
		RedisClusterAsyncCommands<String, String> sync;
		try {
			if (client instanceof RedisClusterClient cluster) {
				StatefulRedisClusterConnection<String, String> clusterConnection = cluster.connect(StringCodec.UTF8);
				sync = clusterConnection.async();
				opened = clusterConnection;
			}
			else {
				StatefulRedisConnection<String, String> standalone = ((RedisClient) client).connect(StringCodec.UTF8);
				sync = standalone.async();
				opened = standalone;
			}
		}
		catch (IllegalStateException | ClassCastException ex) {
			// E.g. a static master/replica setup, whose client has no default URI: Spring routes the connections.
			logger.debug("Lock scripts run through RedisTemplate: " + ex.getMessage());
			templateOnly = true;
			return;
		}
		// No Lettuce timer per command (a HashedWheelTimeout and its cancellation on every EVALSHA): every call on
		// this connection waits for its reply in await(), which ends the command at the call's own deadline, never
		// later than the command timeout. A timeout the client's options fix for every command stays in force. A
		// cluster connection keeps the command timeout: its setting never reached the node connections' timers (so
		// zero saved nothing there), and a cluster client's shutdown once hung after a node was killed with it.
		opened.setTimeout(opened instanceof StatefulRedisClusterConnection<?, ?> ? timeout : Duration.ZERO);
		connection = opened;
		commands = sync;
		logger.debug("Opened the lock-script connection");
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
	 * {@code acquire.lua}'s holder, {@code <owner>\n<host>} (neither has control characters), as it stores it.
	 */
	private String holder(OwnerDetails owner) {
		HolderArg last = lastHolder;
		if (!last.owner().equals(owner)) {
			last = new HolderArg(owner, owner.owner() + "\n" + owner.host());
			lastHolder = last;
		}
		return last.arg();
	}

	/** {@code acquire.lua}'s ARGV[5]: the queue stay, formatted once for the usual one. */
	private String stayMillis(Duration queueStay) {
		return queueStay.equals(RedisKeys.QUEUE_STAY) ? queueStayMillis : String.valueOf(queueStay.toMillis());
	}

	/** {@code acquire.lua}'s ARGV[7]: the queued attempt's number, the first few formatted once. */
	private static String attemptArg(int attempt) {
		return attempt < ATTEMPTS.length ? ATTEMPTS[attempt] : String.valueOf(attempt);
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

	/**
	 * An owner's holder ARGV.
	 */
	private record HolderArg(OwnerDetails owner, String arg) {
	}

}
