package dev.distlock.redis;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockIdSupport;
import dev.distlock.core.spi.LockRenewal;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.Acquisition;
import dev.distlock.core.spi.FirstAttempt;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.OperatorSupport;
import dev.distlock.core.spi.StatusQuery;
import dev.distlock.core.spi.StoreClock;
import dev.distlock.core.spi.WaitingLockProvider;

/**
 * Locks in Redis through Spring Data Redis. Every lock operation is one script (one EVALSHA round trip) that compares
 * the owner token; fencing tokens come from a per-key counter kept for the fence retention. Waiters queue in Redis and
 * are handed the lock by the release itself, woken over one shared pub/sub connection (Lettuce factories); without
 * pub/sub they poll. Exclusive waiters queue in both modes, and while one is queued and live new shared holders are
 * refused (writer priority). Locks may carry a lock ID (a record beside the owner token, and an index per ID written
 * before the grant, in the ID's own slot) and be unlocked or renewed by it from any process, or have no expiry; a
 * plain request (no lock ID, with a lease) does no lock-ID work. Every call has a deadline: the lease it serves,
 * never below a healthy round trip on a loaded machine nor above the client's command timeout; a grant that arrives
 * after its lease is released, so a lease shorter than a round trip is "not acquired", as on any store. With {@code replicaAcks} above 0, a grant counts only once that many
 * replicas acknowledged it ({@code WAIT}). With {@code fencing} off, a plain exclusive lock is taken by one plain
 * {@code SET NX GET} (fencing token 0) and released by a compare-and-delete that records nothing
 * ({@link LockScripts#lean}); a waiter whose plain attempt is refused queues as above.
 */
public final class RedisLockProvider
		implements WaitingLockProvider, LockIdSupport, OperatorSupport, StoreClock, AutoCloseable {

	private static final Log logger = LogFactory.getLog(RedisLockProvider.class);

	private final RedisConnectionFactory connectionFactory;

	private final RedisLockSettings settings;

	private final StringRedisTemplate redis;

	private final RedisKeys keys;

	private final RedisLockStatus status;

	private final LockScripts scripts;

	private final RedisLockIds ids;

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
		this.cluster = !(connectionFactory instanceof LettuceConnectionFactory lettuce) || lettuce.isClusterAware();
		this.channels = new PubSubChannels(keys, settings.pubSub() ? pubSubConnector(connectionFactory) : null,
				message -> RedisAcquisition.route(message, queued));
		this.scripts = new LockScripts(connectionFactory, redis, keys, channels.enabled(), settings.fenceRetention(),
				settings.replicaAcks(), settings.fencing());
		this.ids = scripts.ids();
		this.status = new RedisLockStatus(redis, keys, scripts.timeout());
	}

	/** The settings this provider runs with. */
	public RedisLockSettings settings() {
		return settings;
	}

	/** The connection factory this provider uses. */
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
		long sent = System.nanoTime();
		long[] reply;
		try {
			reply = scripts.lean(request) ? scripts.acquireLean(request) : scripts.acquire(request, Duration.ZERO, 0, "");
		}
		catch (RuntimeException ex) {
			scripts.cleanUp(request);
			throw storeError(ex);
		}
		return reply[0] == 0 ? Optional.empty() : Optional.of(lease(request, reply[1], sent));
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
		long sent = System.nanoTime();
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
			leases.add(lease(requests.get(i), reply[i + 1], sent));
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
	 * Starts a waiting acquisition with its first attempt, the one {@link #begin} would make: a refused exclusive
	 * request is queued by that same script run, and only a refusal makes the acquisition.
	 */
	@Override
	public FirstAttempt start(LockRequest request) {
		return RedisAcquisition.start(request, scripts, channels, queued);
	}

	/**
	 * Releases the ID's members through the ordinary release script, newest first ({@link RedisLockIds}); not atomic
	 * across slots: a lock added under the ID after its index was read stays.
	 */
	@Override
	public List<LockInfo> unlock(String lockId) {
		return call(() -> ids.unlock(lockId));
	}

	/**
	 * Moves the lease of every lock the ID's members still hold; members recorded but no longer held are reported as
	 * expired ({@link RedisLockIds}).
	 */
	@Override
	public LockRenewal renew(String lockId, Duration lease) {
		return call(() -> ids.renew(lockId, lease));
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
	 * Sends {@code TIME} and returns the server's answer, in microseconds. On a cluster the client picks the node, so
	 * the nodes' clocks should agree.
	 * @throws LockStoreException when Redis cannot be reached or answers with an error
	 */
	@Override
	public Instant storeTime() {
		Long micros = call(
				() -> redis.execute((RedisCallback<Long>) c -> c.serverCommands().time(TimeUnit.MICROSECONDS)));
		if (micros == null) {
			throw new LockStoreException(null, "Redis answered TIME with nothing", null);
		}
		return Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
	}

	/**
	 * Closes the release-signal subscription and the lock-script connection, and waits for them to close for at most
	 * the command timeout; the connection factory stays open. Close the provider before the factory stops (the
	 * starter does): a Lettuce client's shutdown waits for every connection opened on it, and once a cluster node has
	 * died, a connection left to that shutdown can fail to finish closing, so the shutdown never returns.
	 */
	@Override
	public void close() {
		CompletableFuture<Void> closed = CompletableFuture.allOf(scripts.closeAsync(), channels.closeAsync());
		try {
			closed.get(scripts.timeout().toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			logger.warn("Redis lock connections did not close within " + scripts.timeout());
		}
		catch (ExecutionException ex) {
			logger.debug("Closing the Redis lock connections failed", ex.getCause());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	PubSubChannels channels() {
		return channels;
	}

	private RedisLease lease(LockRequest request, long fencingToken, long sentNanos) {
		return new RedisLease(scripts, request, fencingToken, sentNanos);
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

}
