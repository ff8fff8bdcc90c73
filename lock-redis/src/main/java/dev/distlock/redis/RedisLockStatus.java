package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.core.LockMode;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.StatusQuery;

/**
 * Lists locks with SCAN (never KEYS) over the fence hashes of the namespace, on every master in a cluster, then reads
 * each lock with the read-only status script.
 */
final class RedisLockStatus {

	private static final int SCAN_COUNT = 500;

	private final StringRedisTemplate redis;

	private final RedisKeys keys;

	RedisLockStatus(StringRedisTemplate redis, RedisKeys keys) {
		this.redis = redis;
		this.keys = keys;
	}

	List<LockInfo> status(StatusQuery query) {
		String keyPrefix = query.keyPrefix() != null ? query.keyPrefix() : "";
		ScanOptions options = ScanOptions.scanOptions().match(keys.fencePattern(keyPrefix)).count(SCAN_COUNT).build();
		TreeSet<String> lockKeys = redis.execute((RedisCallback<TreeSet<String>>) connection -> {
			TreeSet<String> found = new TreeSet<>();
			if (connection instanceof RedisClusterConnection cluster) {
				for (RedisClusterNode node : cluster.clusterGetNodes()) {
					if (node.isMaster()) {
						collect(cluster.scan(node, options), found);
					}
				}
			}
			else {
				collect(connection.keyCommands().scan(options), found);
			}
			return found;
		});
		List<LockInfo> result = new ArrayList<>();
		for (String key : lockKeys) {
			LockInfo info = read(key);
			if (query.matches(info)) {
				result.add(info);
			}
		}
		result.sort(Comparator.comparing(LockInfo::key));
		return result;
	}

	private void collect(Cursor<byte[]> cursor, TreeSet<String> found) {
		try (cursor) {
			while (cursor.hasNext()) {
				String key = keys.keyOfFence(new String(cursor.next(), StandardCharsets.UTF_8));
				if (key != null) {
					found.add(key);
				}
			}
		}
	}

	private LockInfo read(String key) {
		List<?> row = redis.execute(RedisScripts.STATUS.spring(), List.of(keys.lock(key), keys.fence(key)));
		String type = String.valueOf(row.get(0));
		long pttl = ((Number) row.get(1)).longValue();
		int holders = ((Number) row.get(2)).intValue();
		long fencing = Long.parseLong(String.valueOf(row.get(3)));
		String mode = String.valueOf(row.get(7));
		boolean held = !"none".equals(type) && holders > 0;
		Duration remaining = held && pttl > 0 ? Duration.ofMillis(pttl) : Duration.ZERO;
		return new LockInfo(key, "s".equals(mode) || "zset".equals(type) ? LockMode.SHARED : LockMode.EXCLUSIVE,
				blankToNull(row.get(4)), blankToNull(row.get(5)), fencing, acquiredAt(row.get(6)), remaining,
				held ? holders : 0);
	}

	private static @Nullable String blankToNull(Object value) {
		String text = String.valueOf(value);
		return text.isEmpty() ? null : text;
	}

	private static @Nullable Instant acquiredAt(Object value) {
		String text = String.valueOf(value);
		return text.isEmpty() ? null : Instant.ofEpochMilli(Long.parseLong(text));
	}

}
