package dev.distlock.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.core.InvalidLockOptionException;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.LockMode;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockIdSupport;
import dev.distlock.core.spi.LockRenewal;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.Acquisition;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.LockStatusSource;
import dev.distlock.core.spi.StatusQuery;
import dev.distlock.core.spi.StoreHealth;
import dev.distlock.core.spi.WaitingLockProvider;
import dev.distlock.core.spi.WriterPriority;

/**
 * Locks in Redis through Spring Data Redis. Every lock operation is one script (one EVALSHA round trip) that compares
 * the owner token; fencing tokens come from a per-key counter kept for the fence retention. Waiters queue in Redis and
 * are handed the lock by the release itself, woken over one shared pub/sub connection (Lettuce factories); without
 * pub/sub they poll. Exclusive waiters queue in both modes, and while one is queued and live new shared holders are
 * refused (writer priority). Locks may carry a lock ID (a record beside the owner token, and an index per ID written
 * before the grant, in the ID's own slot) and be unlocked or renewed by it from any process, or have no expiry; a
 * plain request (no lock ID, with a lease) does no lock-ID work. Every call has a deadline: the lease it serves,
 * capped by the client's command timeout. With {@code replicaAcks} above 0, a grant counts only once that many
 * replicas acknowledged it ({@code WAIT}).
 */
public final class RedisLockProvider
		implements WaitingLockProvider, LockIdSupport, WriterPriority, LockStatusSource, StoreHealth, AutoCloseable {

	private static final Log logger = LogFactory.getLog(RedisLockProvider.class);

	private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

	private final RedisConnectionFactory connectionFactory;

	private final RedisLockSettings settings;

	private final StringRedisTemplate redis;

	private final RedisKeys keys;

	private final RedisLockStatus status;

	private final ScriptRunner runner;

	private final LockScripts scripts;

	private final PubSubChannels channels;

	/** Queued waiters by owner token, for routing hand-off messages. */
	private final Map<String, RedisAcquisition> queued = new ConcurrentHashMap<>();

	private final boolean cluster;

	/**
	 * A provider on the connection factory, which the caller owns and closes.
	 */
	public RedisLockProvider(RedisConnectionFactory connectionFactory, RedisLockSettings settings) {
		if (settings.replicaAcks() > 0 && !(connectionFactory instanceof LettuceConnectionFactory)) {
			throw new InvalidLockOptionException("replicaAcks", "needs a LettuceConnectionFactory (WAIT must run on "
					+ "the connection that wrote the grant), was " + settings.replicaAcks());
		}
		this.connectionFactory = connectionFactory;
		this.settings = settings;
		this.redis = new StringRedisTemplate(connectionFactory);
		this.keys = new RedisKeys(settings.namespace());
		this.status = new RedisLockStatus(redis, keys);
		this.cluster = !(connectionFactory instanceof LettuceConnectionFactory lettuce) || lettuce.isClusterAware();
		this.runner = new ScriptRunner(connectionFactory, redis, commandTimeout(connectionFactory));
		this.channels = new PubSubChannels(keys, settings.pubSub() ? pubSubConnector(connectionFactory) : null,
				message -> RedisAcquisition.route(message, queued));
		this.scripts = new LockScripts(runner, keys, channels.enabled(), settings.fenceRetention(),
				settings.replicaAcks());
	}

	/**
	 * The settings this provider runs with.
	 */
	public RedisLockSettings settings() {
		return settings;
	}

	/**
	 * The connection factory this provider uses.
	 */
	public RedisConnectionFactory connectionFactory() {
		return connectionFactory;
	}

	@Override
	public String name() {
		return "redis";
	}

	/**
	 * One attempt that does not queue. If Redis does not answer, the lock may have been granted anyway (the script ran,
	 * the reply was lost): it is released by owner token before the error is thrown.
	 */
	@Override
	public Optional<Lease> tryAcquire(LockRequest request) {
		if (request.shared()) {
			return tryAcquireAll(List.of(request)).map(leases -> leases.get(0));
		}
		long[] reply;
		try {
			reply = scripts.acquire(request, Duration.ZERO, 0, "");
		}
		catch (RuntimeException ex) {
			scripts.cleanUp(request);
			throw storeError(ex);
		}
		return reply[0] == 0 ? Optional.empty() : Optional.of(lease(request, reply[1]));
	}

	/**
	 * Takes the whole group in one script when one script may touch all its keys (standalone Redis, or keys sharing a
	 * cluster slot through a hash tag); otherwise key by key with rollback, as the SPI default does. A call Redis did
	 * not answer is undone by owner token before the error is thrown.
	 */
	@Override
	public Optional<List<Lease>> tryAcquireAll(List<LockRequest> requests) {
		if (cluster && !keys.sameSlot(requests.stream().map(LockRequest::key).toList())) {
			return WaitingLockProvider.super.tryAcquireAll(requests);
		}
		long[] reply;
		try {
			reply = scripts.acquireAll(requests, false);
		}
		catch (RuntimeException ex) {
			requests.forEach(scripts::cleanUp);
			throw storeError(ex);
		}
		if (reply[0] != 1) {
			return Optional.empty();
		}
		List<Lease> leases = new ArrayList<>(requests.size());
		for (int i = 0; i < requests.size(); i++) {
			leases.add(lease(requests.get(i), reply[i + 1]));
		}
		return Optional.of(List.copyOf(leases));
	}

	/**
	 * Starts a waiting acquisition: exclusive requests queue for a direct hand-off when pub/sub is on.
	 */
	@Override
	public Acquisition begin(LockRequest request) {
		return new RedisAcquisition(request, scripts, channels, queued);
	}

	/**
	 * Reads the ID's index newest first, then per member checks its record (owner token and ID, in the lock's slot)
	 * and releases it through the ordinary release script (so a queued waiter is handed the lock); records of expired
	 * members are dropped, and every entry read leaves the index. Not atomic across slots: a lock added under the ID
	 * after the index was read stays.
	 */
	@Override
	public List<LockInfo> unlock(String lockId) {
		return call(() -> {
			List<LockInfo> released = new ArrayList<>();
			List<String> done = new ArrayList<>();
			for (String member : scripts.members(lockId)) {
				int space = member.indexOf(' ');
				if (space > 0) {
					String token = member.substring(0, space);
					String key = member.substring(space + 1);
					LockScripts.IdMember found = scripts.idMember(key, token, lockId, -1);
					if (found != null && found.held()
							&& scripts.releaseById(key, token, found.shared(), lockId)) {
						released.add(info(found, lockId));
					}
				}
				done.add(member);
			}
			scripts.unindex(lockId, done, runner.deadline(runner.timeout()));
			return released;
		});
	}

	/**
	 * Reads the ID's index newest first, then per member moves the lease of a lock its token still holds, recording
	 * the TTL and renewal time; members recorded but no longer held are reported as expired, and entries without a
	 * record leave the index.
	 */
	@Override
	public LockRenewal renew(String lockId, Duration ttl) {
		return call(() -> {
			List<LockInfo> renewed = new ArrayList<>();
			List<LockInfo> expired = new ArrayList<>();
			List<String> gone = new ArrayList<>();
			long until = runner.deadline(runner.timeout());
			List<String> members = scripts.members(lockId);
			scripts.extendIndex(lockId, ttl, until);
			for (String member : members) {
				int space = member.indexOf(' ');
				LockScripts.IdMember found = space <= 0 ? null : scripts.idMember(member.substring(space + 1),
						member.substring(0, space), lockId, Math.max(1, ttl.toMillis()));
				if (found == null) {
					gone.add(member);
				}
				else {
					(found.held() ? renewed : expired).add(info(found, lockId));
				}
			}
			scripts.unindex(lockId, gone, until);
			return new LockRenewal(lockId, renewed, expired);
		});
	}

	private static LockInfo info(LockScripts.IdMember member, String lockId) {
		Duration remaining = !member.held() ? Duration.ZERO
				: member.remainingMillis() < 0 ? LockInfo.NO_EXPIRY : Duration.ofMillis(member.remainingMillis());
		return new LockInfo(member.key(), member.shared() ? LockMode.SHARED : LockMode.EXCLUSIVE,
				member.owner().isEmpty() ? null : member.owner(), member.host().isEmpty() ? null : member.host(),
				member.fence(), instant(member.createdAt()), remaining, member.held() ? 1 : 0, lockId,
				instant(member.renewedAt()), member.ttlMillis() < 0 ? null : Duration.ofMillis(member.ttlMillis()));
	}

	private static @Nullable Instant instant(String millis) {
		return millis.isEmpty() ? null : Instant.ofEpochMilli(Long.parseLong(millis));
	}

	@Override
	public boolean isLocked(String key) {
		return Boolean.TRUE.equals(call(() -> redis.hasKey(keys.lock(key))));
	}

	@Override
	public List<LockInfo> status(StatusQuery query) {
		return call(() -> status.status(query));
	}

	/**
	 * Deletes the lock whoever holds it and wakes its waiters; the fencing counter stays, so tokens keep increasing.
	 */
	@Override
	public boolean forceRelease(String key) {
		return call(() -> scripts.forceRelease(key));
	}

	/**
	 * Sends PING and returns the round-trip time, for health checks.
	 * @throws LockStoreException when Redis cannot be reached or answers with an error
	 */
	@Override
	public Duration ping() {
		long start = System.nanoTime();
		String answer = call(() -> redis.execute((RedisCallback<String>) c -> c.ping()));
		if (!"PONG".equalsIgnoreCase(answer)) {
			throw new LockStoreException(null, "Redis answered PING with '" + answer + "'", null);
		}
		return Duration.ofNanos(System.nanoTime() - start);
	}

	/**
	 * Closes the release-signal subscription and the lock-script connection; the connection factory stays open.
	 */
	@Override
	public void close() {
		channels.close();
		runner.close();
	}

	PubSubChannels channels() {
		return channels;
	}

	private RedisLease lease(LockRequest request, long fencingToken) {
		return new RedisLease(scripts, request, fencingToken);
	}

	/**
	 * Runs one Redis call, turning client and Spring data-access errors into {@link LockStoreException}; the template
	 * adds the key and the operation.
	 */
	private static <T> T call(Supplier<T> action) {
		try {
			return action.get();
		}
		catch (RuntimeException ex) {
			throw storeError(ex);
		}
	}

	private static RuntimeException storeError(RuntimeException ex) {
		if (ex instanceof DataAccessException || ex instanceof RedisException) {
			return new LockStoreException(null, ex.getMessage() != null ? ex.getMessage() : ex.toString(), ex);
		}
		return ex;
	}

	private static @Nullable Supplier<StatefulRedisPubSubConnection<String, String>> pubSubConnector(
			RedisConnectionFactory factory) {
		if (!(factory instanceof LettuceConnectionFactory lettuce)) {
			logger.debug("Release signals need a Lettuce connection factory; waiters poll instead");
			return null;
		}
		return () -> {
			AbstractRedisClient client = lettuce.getRequiredNativeClient();
			if (client instanceof RedisClusterClient clusterClient) {
				return clusterClient.connectPubSub();
			}
			return ((RedisClient) client).connectPubSub();
		};
	}

	private static Duration commandTimeout(RedisConnectionFactory factory) {
		return factory instanceof LettuceConnectionFactory lettuce
				? lettuce.getClientConfiguration().getCommandTimeout() : DEFAULT_TIMEOUT;
	}

}
