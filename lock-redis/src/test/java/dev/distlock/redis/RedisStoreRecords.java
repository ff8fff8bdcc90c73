package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;

import dev.distlock.test.kit.StoreRecords;

/**
 * The kits' leftover probe on Redis: {@code SCAN} for every key containing the marker, and each key's {@code PTTL}
 * and type, read on a connection that bypasses the provider. A key with {@code PTTL -1} is immortal.
 */
final class RedisStoreRecords implements StoreRecords {

	private final RedisConnectionFactory factory;

	RedisStoreRecords(RedisConnectionFactory factory) {
		this.factory = factory;
	}

	@Override
	public List<StoreRecord> list(String marker) {
		List<StoreRecord> records = new ArrayList<>();
		try (RedisConnection connection = factory.getConnection();
				Cursor<byte[]> keys = connection.keyCommands()
					.scan(ScanOptions.scanOptions().match("*" + marker + "*").count(1_000).build())) {
			while (keys.hasNext()) {
				byte[] key = keys.next();
				Long pttl = connection.keyCommands().pTtl(key);
				if (pttl == null || pttl == -2) {
					continue; // gone since the SCAN
				}
				String type = String.valueOf(connection.keyCommands().type(key));
				records.add(new StoreRecord(new String(key, StandardCharsets.UTF_8),
						pttl == -1 ? null : Duration.ofMillis(pttl), type + " PTTL " + pttl));
			}
		}
		return records;
	}

}
