package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.distlock.core.LockStoreException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ZSetOperations;

/**
 * Runs the lock scripts. With a Lettuce factory they go over one dedicated connection of the factory's own client
 * (standalone, Sentinel or cluster), EVALSHA first and EVAL once on NOSCRIPT: a Spring template call costs a new
 * connection wrapper, serializers and transaction-synchronisation lookups per call, which was half the client CPU of
 * an uncontended cycle. Other factories, and a Lettuce client without a default URI, go through the template.
 * <p>Every call on the dedicated connection has its own deadline: the lease it serves, never below a healthy round trip
 * on a loaded machine ({@link #MIN_DEADLINE}) nor above the command timeout. A call that misses it throws; the command
 * may still run on the server later, which is why callers clean up by owner token after a failed acquire, and a grant
 * that arrives after its lease has passed is released, not handed out.
 */
final class ScriptRunner implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(ScriptRunner.class);

	private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

	/**
	 * The shortest call deadline, whatever the lease: a loaded machine (a GC pause, a busy CPU) can stretch a healthy
	 * round trip to hundreds of milliseconds, and a deadline below that would report a healthy store as failed. A grant
	 * that arrives after its lease has passed is released by the caller (the core's ran-out path, or the cleanup of an
	 * attempt that got no answer), so a call may outlive a shorter lease safely.
	 */
	static final Duration MIN_DEADLINE = Duration.ofSeconds(2);

	private final StringRedisTemplate template;

	private final @Nullable LettuceConnectionFactory lettuce;

	private final Duration timeout;

	private final Object lock = new Object();

	private volatile @Nullable RedisClusterAsyncCommands<String, String> commands;

	private volatile @Nullable StatefulConnection<String, String> connection;

	private volatile boolean templateOnly;

	/**
	 * A runner on the factory; its command timeout is the Lettuce client's, or 5 s for another factory.
	 */
	ScriptRunner(RedisConnectionFactory factory, StringRedisTemplate template) {
		this.template = template;
		this.lettuce = factory instanceof LettuceConnectionFactory lettuceFactory ? lettuceFactory : null;
		this.templateOnly = lettuce == null;
		this.timeout = lettuce != null ? lettuce.getClientConfiguration().getCommandTimeout() : DEFAULT_TIMEOUT;
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
	<T> @Nullable T run(RedisScripts.LuaScript<T> script, String[] keys, String[] args, long untilNanos) {
		RedisClusterAsyncCommands<String, String> async = commands();
		if (async == null) {
			return template.execute(script.spring(), List.of(keys), (Object[]) args);
		}
		try {
			return (T) await(async.evalsha(script.sha(), script.output(), keys, args), untilNanos);
		}
		catch (RedisNoScriptException ex) {
			// The server lost its script cache (restart, failover, SCRIPT FLUSH): EVAL caches it again.
			return (T) await(async.eval(script.text(), script.output(), keys, args), untilNanos);
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
			for (RedisFuture<List<ScoredValue<String>>> reply : replies) {
				@SuppressWarnings("unchecked")
				List<ScoredValue<String>> members = (List<ScoredValue<String>>) await(reply, untilNanos);
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
		for (RedisFuture<Long> reply : replies) {
			await(reply, untilNanos);
		}
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
	long awaitReplicas(String redisKey, int replicas, long untilNanos) {
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

	@Override
	public void close() {
		StatefulConnection<String, String> open;
		synchronized (lock) {
			templateOnly = true;
			commands = null;
			open = connection;
			connection = null;
		}
		if (open != null) {
			open.closeAsync();
		}
	}

	private @Nullable RedisClusterAsyncCommands<String, String> commands() {
		RedisClusterAsyncCommands<String, String> sync = commands;
		if (sync != null || templateOnly) {
			return sync;
		}
		synchronized (lock) {
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
		opened.setTimeout(timeout);
		connection = opened;
		commands = sync;
		logger.debug("Opened the lock-script connection");
	}

}
