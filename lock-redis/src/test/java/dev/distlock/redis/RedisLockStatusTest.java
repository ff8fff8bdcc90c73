package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.core.RedisCallback;

import dev.distlock.core.LockMode;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.StatusQuery;
import dev.distlock.redis.testsupport.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The status query scans lock keys, not every key ever locked: released keys (their fence hashes stay) cost SCAN
 * pages only, each page's locks are read with one script call, and a limit stops the scan.
 */
class RedisLockStatusTest {

	private static final OwnerDetails OWNER = new OwnerDetails("status-test", "test-host");

	private static final Duration LEASE = Duration.ofSeconds(60);

	@RegisterExtension
	static final RedisServerExtension server = new RedisServerExtension(Duration.ofSeconds(5));

	private RedisLockProvider provider;

	private final List<Lease> held = new ArrayList<>();

	@BeforeEach
	void emptyServer() {
		server.redis().execute((RedisCallback<Void>) connection -> {
			connection.serverCommands().flushAll();
			return null;
		});
		provider = new RedisLockProvider(server.factory(), RedisLockSettings.defaults());
	}

	@AfterEach
	void closeProvider() {
		held.forEach(Lease::release);
		provider.close();
	}

	@Test
	void heldStatusOverTwentyThousandReleasedKeysFindsTheThreeHeldWithOneScriptCallPerPage() {
		releasedKeys("order:", 20_000);
		hold("seat:1", "seat:2", "seat:3");

		Map<String, Long> before = commandStats();
		List<LockInfo> infos = provider.status(StatusQuery.held());
		Map<String, Long> delta = delta(before, commandStats());

		assertThat(infos).extracting(LockInfo::key).containsExactly("seat:1", "seat:2", "seat:3");
		assertThat(infos).allSatisfy(info -> assertThat(info.owner()).isEqualTo("status-test"));
		assertThat(infos).extracting(LockInfo::fencingToken)
			.containsExactlyElementsOf(held.stream().map(Lease::fencingToken).toList());
		// SCAN walks the 20,003 fence hashes and lock keys in pages of SCAN_COUNT; the server's MATCH drops the fence
		// hashes, so the script reads the three lock keys only (one TYPE and one HMGET each), in one call per page
		// that had one: at most three calls, against 20,003 before.
		long scans = delta.getOrDefault("scan", 0L);
		assertThat(scans).isBetween(20_003L / RedisLockStatus.SCAN_COUNT, 3L * 20_003 / RedisLockStatus.SCAN_COUNT);
		assertThat(delta.get("evalsha")).isBetween(1L, 3L);
		assertThat(delta.get("type")).isEqualTo(3L);
		assertThat(delta.get("hmget")).isEqualTo(3L);
		assertThat(delta.get("evalsha") + scans).isLessThan(100L);
	}

	@Test
	void manyHeldLocksOnOnePageAreReadByOneScriptCall() {
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			keys.add("row:" + i);
		}
		hold(keys.toArray(String[]::new));

		Map<String, Long> before = commandStats();
		List<LockInfo> infos = provider.status(StatusQuery.held().withKeyPrefix("row:"));
		Map<String, Long> delta = delta(before, commandStats());

		assertThat(infos).hasSize(200).allSatisfy(info -> assertThat(info.held()).isTrue());
		assertThat(infos).extracting(LockInfo::key).isSorted();
		// 200 keys fit one SCAN page (COUNT 1000) and one batch: one SCAN, one EVALSHA.
		assertThat(delta.get("scan")).isEqualTo(1L);
		assertThat(delta.get("evalsha")).isEqualTo(1L);
	}

	@Test
	void aLimitStopsTheScanOnceThatManyMatchesAreFound() {
		releasedKeys("order:", 20_000);
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < 40; i++) {
			keys.add("row:" + i);
		}
		hold(keys.toArray(String[]::new));

		Map<String, Long> beforeAll = commandStats();
		assertThat(provider.status(StatusQuery.held())).hasSize(40);
		long fullScans = delta(beforeAll, commandStats()).get("scan");

		Map<String, Long> before = commandStats();
		List<LockInfo> limited = provider.status(StatusQuery.held().withLimit(5));
		long limitedScans = delta(before, commandStats()).get("scan");

		assertThat(limited).hasSize(5).allSatisfy(info -> assertThat(keys).contains(info.key()));
		assertThat(limited).extracting(LockInfo::key).isSorted();
		// 40 held keys spread over about 20 SCAN pages: the fifth match comes long before the last page.
		assertThat(limitedScans).isLessThan(fullScans);
	}

	@Test
	void expiredMeansALockKeyThatOutlivedEveryHolderAndReleasedKeysAreNotListed() {
		releasedKeys("order:", 50);
		hold("live");
		provider.tryAcquire(new LockRequest("readers", "r1", LEASE, LockMode.SHARED, 3, OWNER)).ifPresent(held::add);
		// A shared set whose only place expired while the set itself still lives (as a set does for the instant
		// between its last holder's expiry and its own): the one thing Redis keeps of an expired lock.
		server.redis().opsForZSet().add("distlock:{stale}", "gone-token", 1_000);
		server.redis().expire("distlock:{stale}", Duration.ofSeconds(60));
		server.redis().opsForHash().putAll("distlock:{stale}:fence", Map.of("n", "7", "owner", "old", "mode", "s"));
		// Not a lock: another type under a lock-shaped name.
		server.redis().opsForHash().put("distlock:{not-a-lock}", "f", "v");

		assertThat(provider.status(StatusQuery.all())).extracting(LockInfo::key)
			.containsExactly("live", "readers", "stale");
		List<LockInfo> expired = provider.status(new StatusQuery(null, null, StatusQuery.State.EXPIRED, null));
		assertThat(expired).singleElement().satisfies(info -> {
			assertThat(info.key()).isEqualTo("stale");
			assertThat(info.held()).isFalse();
			assertThat(info.holders()).isZero();
			assertThat(info.mode()).isEqualTo(LockMode.SHARED);
			assertThat(info.fencingToken()).isEqualTo(7);
			assertThat(info.owner()).isEqualTo("old");
		});
		assertThat(provider.status(StatusQuery.held())).extracting(LockInfo::key).containsExactly("live", "readers");
	}

	@Test
	void aScriptCacheFlushIsRecoveredWithEval() {
		hold("a");
		provider.status(StatusQuery.held());
		server.redis().execute((RedisCallback<Void>) connection -> {
			connection.scriptingCommands().scriptFlush();
			return null;
		});
		assertThat(provider.status(StatusQuery.held())).extracting(LockInfo::key).containsExactly("a");
	}

	private void hold(String... keys) {
		for (String key : keys) {
			held.add(provider.tryAcquire(new LockRequest(key, "token-" + key, LEASE, LockMode.EXCLUSIVE, 1, OWNER))
				.orElseThrow());
		}
	}

	/**
	 * What a released key leaves behind: its fence hash. The first ten go through a real acquire and release, the
	 * rest are written as the acquire script writes them, pipelined, to keep the test fast.
	 */
	private void releasedKeys(String prefix, int count) {
		for (int i = 0; i < 10; i++) {
			provider.tryAcquire(new LockRequest(prefix + i, "t", LEASE, LockMode.EXCLUSIVE, 1, OWNER))
				.orElseThrow()
				.release();
		}
		server.redis().executePipelined((RedisCallback<Object>) connection -> {
			for (int i = 10; i < count; i++) {
				byte[] fence = ("distlock:{" + prefix + i + "}:fence").getBytes(StandardCharsets.UTF_8);
				connection.hashCommands()
					.hMSet(fence, Map.of(bytes("n"), bytes(String.valueOf(1_700_000_000_000_000L + i)), bytes("owner"),
							bytes("status-test"), bytes("host"), bytes("test-host"), bytes("at"),
							bytes("1700000000000"), bytes("mode"), bytes("x")));
			}
			return null;
		});
		assertThat(server.redis().execute((RedisCallback<Long>) connection -> connection.serverCommands().dbSize()))
			.isGreaterThanOrEqualTo(count);
	}

	/** Calls per command since the server started (INFO commandstats), the INFO itself excluded. */
	private static Map<String, Long> commandStats() {
		Properties info = server.redis()
			.execute((RedisCallback<Properties>) c -> c.serverCommands().info("commandstats"));
		Map<String, Long> calls = new TreeMap<>();
		info.forEach((name, value) -> {
			String stat = String.valueOf(name);
			if (stat.startsWith("cmdstat_")) {
				String count = String.valueOf(value).split(",")[0].substring("calls=".length());
				calls.put(stat.substring("cmdstat_".length()), Long.parseLong(count));
			}
		});
		return calls;
	}

	private static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
		Map<String, Long> delta = new TreeMap<>();
		after.forEach((name, count) -> {
			long diff = count - before.getOrDefault(name, 0L);
			if (diff != 0 && !"info".equals(name)) {
				delta.put(name, diff);
			}
		});
		return delta;
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
