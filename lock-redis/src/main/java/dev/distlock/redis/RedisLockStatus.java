package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.core.LockMode;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.StatusQuery;

/**
 * Lists locks with SCAN (never KEYS) over the lock keys of the namespace, on every master in a cluster. A lock key
 * lives only while its lease does, so released and expired locks cost nothing beyond the SCAN pages that step over
 * their other keys. Each page's locks are read together with the read-only status script: one call per page
 * (standalone, Sentinel), or one call per slot of the page sent together in one round trip (cluster, where a
 * script's keys must share a slot). Filtering and the query's limit apply page by page ({@link StatusPages}), so
 * scanning stops once the limit is reached.
 * <p>
 * {@link StatusQuery.State#EXPIRED} on Redis: a lock key that still exists without a live holder. Exclusive locks
 * expire with their lease and shared sets with their longest-lived holder, so this is normally empty; released locks
 * are never listed (their fence hashes are not scanned, and expire by themselves with fence retention).
 */
final class RedisLockStatus {

	/** Keys the server examines per SCAN page; only lock keys come back. */
	static final int SCAN_COUNT = 1000;

	/** Locks read per script call at most, so one reply stays small. */
	static final int BATCH = 256;

	private static final int FIELDS = 12;

	private final StringRedisTemplate redis;

	private final RedisKeys keys;

	private final Duration timeout;

	/**
	 * A status reader over the template; {@code timeout} (the command timeout) bounds the wait for a cluster page's
	 * script replies.
	 */
	RedisLockStatus(StringRedisTemplate redis, RedisKeys keys, Duration timeout) {
		this.redis = redis;
		this.keys = keys;
		this.timeout = timeout;
	}

	List<LockInfo> status(StatusQuery query) {
		String keyPrefix = query.keyPrefix() != null ? query.keyPrefix() : "";
		ScanOptions options = ScanOptions.scanOptions().match(keys.lockPattern(keyPrefix)).count(SCAN_COUNT).build();
		List<LockInfo> result = redis.execute((RedisCallback<List<LockInfo>>) connection -> {
			StatusPages pages = new StatusPages(query, keys);
			String lockId = query.lockId();
			if (connection instanceof RedisClusterConnection cluster) {
				for (RedisClusterNode node : cluster.clusterGetNodes()) {
					if (node.isMaster() && !pages.scan(cluster.scan(node, options), batch -> readSlots(cluster, batch, lockId))) {
						break;
					}
				}
			}
			else {
				pages.scan(connection.keyCommands().scan(options), batch -> read(connection, batch, lockId));
			}
			return pages.found();
		});
		result.sort(Comparator.comparing(LockInfo::key));
		return result;
	}

	/** Reads one page of lock keys with one script call. */
	private List<StatusPages.Row> read(RedisConnection connection, List<String> lockKeys, @Nullable String lockId) {
		byte[][] keyBytes = keyBytes(lockKeys);
		List<?> reply;
		try {
			reply = connection.scriptingCommands()
				.evalSha(LuaSources.STATUS.sha(), ReturnType.MULTI, keyBytes.length, keyBytes);
		}
		catch (RuntimeException ex) {
			if (!isNoScript(ex)) {
				throw ex;
			}
			// The server lost its script cache (restart, failover, SCRIPT FLUSH): EVAL caches it again.
			reply = connection.scriptingCommands()
				.eval(LuaSources.STATUS.text().getBytes(StandardCharsets.UTF_8), ReturnType.MULTI, keyBytes.length,
						keyBytes);
		}
		return rows(lockKeys, reply, lockId);
	}

	/**
	 * Reads one cluster page: the locks grouped by slot, one script call per slot, all sent before any reply is
	 * awaited over Lettuce's asynchronous cluster connection, so the page costs one round trip per node it reaches.
	 */
	private List<StatusPages.Row> readSlots(RedisClusterConnection connection, List<String> lockKeys,
			@Nullable String lockId) {
		Map<Integer, List<String>> bySlot = new LinkedHashMap<>();
		for (String key : lockKeys) {
			bySlot.computeIfAbsent(SlotHash.getSlot(keys.lock(key)), slot -> new ArrayList<>()).add(key);
		}
		List<StatusPages.Row> infos = new ArrayList<>(lockKeys.size());
		if (!(connection.getNativeConnection() instanceof RedisClusterAsyncCommands<?, ?> nativeAsync)) {
			bySlot.values().forEach(group -> infos.addAll(read(connection, group, lockId)));
			return infos;
		}
		@SuppressWarnings("unchecked")
		RedisClusterAsyncCommands<byte[], byte[]> async = (RedisClusterAsyncCommands<byte[], byte[]>) nativeAsync;
		List<RedisFuture<List<?>>> replies = new ArrayList<>(bySlot.size());
		for (List<String> group : bySlot.values()) {
			replies.add(async.evalsha(LuaSources.STATUS.sha(), ScriptOutputType.MULTI, keyBytes(group)));
		}
		long deadline = System.nanoTime() + timeout.toNanos();
		int i = 0;
		for (List<String> group : bySlot.values()) {
			List<?> reply;
			try {
				reply = await(replies.get(i++), deadline);
			}
			catch (RedisNoScriptException ex) {
				// That node lost its script cache: EVAL caches it again there.
				reply = await(async.eval(LuaSources.STATUS.text(), ScriptOutputType.MULTI, keyBytes(group)),
						System.nanoTime() + timeout.toNanos());
			}
			infos.addAll(rows(group, reply, lockId));
		}
		return infos;
	}

	/**
	 * The rows of a page: one per lock, or, for a query by lock ID, one per shared holder taken under that ID (with
	 * its own details, as every store reports them); each row also names the owners of all live shared holders.
	 */
	private List<StatusPages.Row> rows(List<String> lockKeys, List<?> reply, @Nullable String lockId) {
		List<StatusPages.Row> rows = new ArrayList<>(lockKeys.size());
		for (int i = 0; i < lockKeys.size(); i++) {
			int at = i * FIELDS;
			LockInfo info = info(lockKeys.get(i), reply, at);
			if (info == null) {
				continue;
			}
			List<?> holders = reply.get(at + 11) instanceof List<?> list ? list : List.of();
			List<String> owners = new ArrayList<>();
			for (int h = 0; h + 8 <= holders.size(); h += 8) {
				owners.add(text(holders.get(h)));
			}
			if (lockId == null || holders.isEmpty()) {
				rows.add(new StatusPages.Row(info, owners));
				continue;
			}
			for (int h = 0; h + 8 <= holders.size(); h += 8) {
				if (lockId.equals(text(holders.get(h + 3)))) {
					LockInfo holder = holderInfo(info, holders, h);
					rows.add(new StatusPages.Row(holder, List.of()));
				}
			}
		}
		return rows;
	}

	/** One live shared holder's lock from its 8 texts: its own owner, times, lock ID, lease and fencing token. */
	private static LockInfo holderInfo(LockInfo lock, List<?> holders, int at) {
		long remainingMillis = Long.parseLong(text(holders.get(at + 6)));
		Duration remaining = remainingMillis < 0 ? LockInfo.NO_EXPIRY : Duration.ofMillis(remainingMillis);
		String leaseText = text(holders.get(at + 5));
		Duration nominalLease = leaseText.isEmpty() ? (remainingMillis < 0 ? null : remaining)
				: "-1".equals(leaseText) ? null : Duration.ofMillis(Long.parseLong(leaseText));
		String fence = text(holders.get(at + 7));
		return new LockInfo(lock.key(), LockMode.SHARED, blankToNull(text(holders.get(at))),
				blankToNull(text(holders.get(at + 1))), fence.isEmpty() ? lock.fencingToken() : Long.parseLong(fence),
				acquiredAt(text(holders.get(at + 2))), remaining, 1, blankToNull(text(holders.get(at + 3))),
				acquiredAt(text(holders.get(at + 4))), nominalLease);
	}

	/** One lock from its first 11 fields, or null when the key is gone or holds no lock. */
	private static @Nullable LockInfo info(String key, List<?> row, int at) {
		String type = text(row.get(at));
		if (!"string".equals(type) && !"zset".equals(type)) {
			return null;
		}
		long pttl = ((Number) row.get(at + 1)).longValue();
		int holders = ((Number) row.get(at + 2)).intValue();
		long fencing = Long.parseLong(text(row.get(at + 3)));
		String mode = text(row.get(at + 7));
		boolean held = holders > 0;
		// PTTL -1: a lock without expiry (an exclusive key without PX, or a set with a holder scored +inf).
		Duration remaining = held && pttl == -1 ? LockInfo.NO_EXPIRY
				: held && pttl > 0 ? Duration.ofMillis(pttl) : Duration.ZERO;
		String leaseText = text(row.get(at + 10));
		Duration nominalLease = leaseText.isEmpty() ? (remaining == LockInfo.NO_EXPIRY ? null : remaining)
				: "-1".equals(leaseText) ? null : Duration.ofMillis(Long.parseLong(leaseText));
		return new LockInfo(key, "s".equals(mode) || "zset".equals(type) ? LockMode.SHARED : LockMode.EXCLUSIVE,
				blankToNull(text(row.get(at + 4))), blankToNull(text(row.get(at + 5))), fencing,
				acquiredAt(text(row.get(at + 6))), remaining, held ? holders : 0, blankToNull(text(row.get(at + 8))),
				acquiredAt(text(row.get(at + 9))), nominalLease);
	}

	private byte[][] keyBytes(List<String> lockKeys) {
		byte[][] bytes = new byte[lockKeys.size() * 4][];
		for (int i = 0; i < lockKeys.size(); i++) {
			RedisKeys.OfLock key = keys.of(lockKeys.get(i));
			bytes[4 * i] = key.lock().getBytes(StandardCharsets.UTF_8);
			bytes[4 * i + 1] = key.fence().getBytes(StandardCharsets.UTF_8);
			bytes[4 * i + 2] = key.ids().getBytes(StandardCharsets.UTF_8);
			bytes[4 * i + 3] = key.holders().getBytes(StandardCharsets.UTF_8);
		}
		return bytes;
	}

	private static List<?> await(RedisFuture<List<?>> reply, long deadlineNanos) {
		try {
			return reply.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof RedisException redis) {
				throw redis;
			}
			throw new RedisException(ex.getCause());
		}
		catch (TimeoutException ex) {
			reply.cancel(true);
			throw new RedisCommandTimeoutException("Status script timed out");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedisException("Interrupted while reading lock status", ex);
		}
	}

	private static boolean isNoScript(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof RedisNoScriptException
					|| (cause.getMessage() != null && cause.getMessage().startsWith("NOSCRIPT"))) {
				return true;
			}
		}
		return false;
	}

	private static String text(@Nullable Object value) {
		return value instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(value);
	}

	private static @Nullable String blankToNull(String text) {
		return text.isEmpty() ? null : text;
	}

	private static @Nullable Instant acquiredAt(String text) {
		return text.isEmpty() ? null : Instant.ofEpochMilli(Long.parseLong(text));
	}

}
