package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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

import dev.distlock.core.LockStoreException;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.LockStatusSource;
import dev.distlock.core.spi.ReleaseNotifier;
import dev.distlock.core.spi.StatusQuery;
import dev.distlock.core.spi.StoreHealth;

/**
 * Locks in Redis through Spring Data Redis. Every lock operation is one script (one EVALSHA round trip) that compares
 * the owner token; fencing tokens come from a per-key counter that never expires. Waiters are woken by pub/sub
 * release messages on one shared subscription connection (Lettuce factories), else they poll.
 */
public final class RedisLockProvider implements LockProvider, LockStatusSource, ReleaseNotifier, StoreHealth,
		AutoCloseable {

	private static final Log logger = LogFactory.getLog(RedisLockProvider.class);

	private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

	/**
	 * How long a waiter's queue entry stays valid without a fresh attempt. Longer than usual retry delays, so a live
	 * waiter keeps its place; short, so a waiter that died stops being handed locks soon (a lock handed to a dead
	 * waiter is held until its lease ends, as a dead holder's is).
	 */
	static final Duration QUEUE_STAY = Duration.ofSeconds(2);

	private static final String QUEUE_STAY_MILLIS = String.valueOf(QUEUE_STAY.toMillis());

	private final RedisConnectionFactory connectionFactory;

	private final RedisLockSettings settings;

	private final StringRedisTemplate redis;

	private final RedisKeys keys;

	private final RedisLockStatus status;

	private final ScriptRunner scripts;

	private final ReleaseSignals signals;

	private final boolean cluster;

	/**
	 * A provider on the connection factory, which the caller owns and closes.
	 */
	public RedisLockProvider(RedisConnectionFactory connectionFactory, RedisLockSettings settings) {
		this.connectionFactory = connectionFactory;
		this.settings = settings;
		this.redis = new StringRedisTemplate(connectionFactory);
		this.keys = new RedisKeys(settings.namespace());
		this.status = new RedisLockStatus(redis, keys);
		this.cluster = !(connectionFactory instanceof LettuceConnectionFactory lettuce) || lettuce.isClusterAware();
		Duration timeout = commandTimeout(connectionFactory);
		this.scripts = new ScriptRunner(connectionFactory, redis, timeout);
		this.signals = new ReleaseSignals(keys, settings.pubSub() ? pubSubConnector(connectionFactory) : null, timeout);
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

	@Override
	public Optional<Lease> tryAcquire(LockRequest request) {
		if (request.shared()) {
			return tryAcquireAll(List.of(request)).map(leases -> leases.get(0));
		}
		String key = request.key();
		HandOff handOff = signals.handOff(request.token());
		if (handOff != null) {
			HandOff.Grant grant = handOff.take();
			if (grant != null) { // a release handed us the lock: no round trip
				return Optional.of(new RedisLease(this, key, request.token(), grant.fencingToken(), false,
						grant.leaseStartNanos()));
			}
		}
		String stay = handOff != null ? QUEUE_STAY_MILLIS : "0";
		String attempt = handOff != null ? String.valueOf(handOff.queuedAttempt(System.nanoTime())) : "0";
		List<?> result = call(key, "acquire", () -> scripts.run(RedisScripts.ACQUIRE,
				exclusiveKeys(key),
				List.of(request.token(), millis(request.lease()), request.owner().owner(), request.owner().host(), stay,
						attempt, signals.grantChannel())));
		long outcome = number(result, 0);
		if (outcome == 0) {
			signals.hint(key, number(result, 1));
			return Optional.empty();
		}
		// 1: taken now; 2: handed to us by a release whose message has not arrived, so count from the first queuing.
		long leaseStart = handOff != null ? handOff.acquiredByReply() : Long.MAX_VALUE;
		return Optional.of(new RedisLease(this, key, request.token(), number(result, 1), false,
				outcome == 2 ? leaseStart : Long.MAX_VALUE));
	}

	/**
	 * Takes the whole group in one script when one script may touch all its keys (standalone Redis, or keys sharing a
	 * cluster slot through a hash tag); otherwise key by key with rollback, as the SPI default does.
	 */
	@Override
	public Optional<List<Lease>> tryAcquireAll(List<LockRequest> requests) {
		List<String> lockKeys = requests.stream().map(LockRequest::key).toList();
		if (cluster && !keys.sameSlot(lockKeys)) {
			return LockProvider.super.tryAcquireAll(requests);
		}
		List<String> redisKeys = new ArrayList<>(requests.size() * 2);
		List<String> args = new ArrayList<>(requests.size() * 6);
		for (LockRequest request : requests) {
			redisKeys.add(keys.lock(request.key()));
			redisKeys.add(keys.fence(request.key()));
			args.add(request.token());
			args.add(millis(request.lease()));
			args.add(request.shared() ? "1" : "0");
			args.add(String.valueOf(request.shared() ? request.maxConcurrent() : 1));
			args.add(request.owner().owner());
			args.add(request.owner().host());
		}
		String label = String.join(",", lockKeys);
		List<?> result = call(label, "acquire",
				() -> scripts.run(RedisScripts.ACQUIRE_ALL, redisKeys, args));
		if (number(result, 0) != 1) {
			if (requests.size() == 1) {
				signals.hint(lockKeys.get(0), number(result, 1));
			}
			return Optional.empty();
		}
		List<Lease> leases = new ArrayList<>(requests.size());
		for (int i = 0; i < requests.size(); i++) {
			LockRequest request = requests.get(i);
			leases.add(new RedisLease(this, request.key(), request.token(), number(result, i + 1), request.shared()));
		}
		return Optional.of(List.copyOf(leases));
	}

	@Override
	public boolean isLocked(String key) {
		return Boolean.TRUE.equals(call(key, "check", () -> redis.hasKey(keys.lock(key))));
	}

	@Override
	public List<LockInfo> status(StatusQuery query) {
		String label = query.keyPrefix() != null ? query.keyPrefix() + "*" : settings.namespace() + ":*";
		return call(label, "read the status of", () -> status.status(query));
	}

	/**
	 * Deletes the lock whoever holds it and wakes its waiters; the fencing counter stays, so tokens keep increasing.
	 */
	@Override
	public boolean forceRelease(String key) {
		String channel = settings.pubSub() ? keys.channel(key) : "";
		Long removed = call(key, "force-release",
				() -> scripts.run(RedisScripts.FORCE_RELEASE, List.of(keys.lock(key)), List.of(channel)));
		return removed != null && removed == 1;
	}

	@Override
	public Watch watch(String key) {
		return signals.watch(key);
	}

	/**
	 * Free when this client already subscribes to the key's release channel, as it does for a while after any wait on
	 * it: a contended key's next waiter then queues with its first attempt.
	 */
	@Override
	public boolean isWatchFree(String key) {
		return signals.isSubscribed(key);
	}

	/**
	 * Watches for one exclusive acquisition that joins the key's FIFO waiter queue, so a release hands it the lock
	 * directly; shared requests, and providers without pub/sub, just watch the key.
	 */
	@Override
	public Watch watch(LockRequest request) {
		if (request.shared() || !signals.handsOff()) {
			return signals.watch(request.key());
		}
		HandOff handOff = new HandOff(request.token());
		return signals.watch(request.key(), handOff, () -> cancelWait(request.key(), request.token()));
	}

	/**
	 * Sends PING and returns the round-trip time, for health checks.
	 * @throws LockStoreException when Redis cannot be reached or answers with an error
	 */
	@Override
	public Duration ping() {
		long start = System.nanoTime();
		String answer = call(settings.namespace(), "ping", () -> redis.execute((RedisCallback<String>) c -> c.ping()));
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
		signals.close();
		scripts.close();
	}

	ReleaseSignals signals() {
		return signals;
	}

	boolean release(String key, String token, boolean shared) {
		String channel = settings.pubSub() ? keys.channel(key) : "";
		Long released = call(key, "release", () -> shared
				? scripts.run(RedisScripts.RELEASE_SHARED, List.of(keys.lock(key)), List.of(token, channel))
				: scripts.run(RedisScripts.RELEASE,
						exclusiveKeys(key),
						List.of(token, channel, "0")));
		return released != null && released == 1;
	}

	/**
	 * A queued waiter gives up: withdraw its entry and pass on a lock handed to it that it never took. Best effort: if
	 * Redis cannot be reached, the entry stops counting after {@link #QUEUE_STAY}.
	 */
	private void cancelWait(String key, String token) {
		try {
			scripts.run(RedisScripts.RELEASE,
					exclusiveKeys(key),
					List.of(token, keys.channel(key), "1"));
		}
		catch (RuntimeException ex) {
			logger.debug("Could not withdraw a waiter of lock '" + key + "': " + ex.getMessage());
		}
	}

	boolean extend(String key, String token, Duration lease, boolean shared) {
		Long extended = call(key, "extend", () -> scripts.run(shared ? RedisScripts.EXTEND_SHARED : RedisScripts.EXTEND,
				List.of(keys.lock(key)), List.of(token, millis(lease))));
		return extended != null && extended == 1;
	}

	/**
	 * Runs one Redis call, turning client and Spring data-access errors into {@link LockStoreException}.
	 */
	private static <T> T call(String key, String what, Supplier<T> action) {
		try {
			return action.get();
		}
		catch (DataAccessException | RedisException ex) {
			throw new LockStoreException(key, "Redis could not " + what + " lock '" + key + "': " + ex.getMessage(), ex);
		}
	}

	/**
	 * The Redis keys the exclusive acquire and release scripts touch: lock, fence hash, waiter queue and entries.
	 */
	private List<String> exclusiveKeys(String key) {
		return List.of(keys.lock(key), keys.fence(key), keys.queue(key), keys.waiters(key));
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
