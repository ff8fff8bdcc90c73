package dev.distlock.redis;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.core.RedisCallback;

import dev.distlock.core.LockGroup;
import dev.distlock.core.LockMode;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.StatusQuery;
import dev.distlock.redis.testsupport.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The wire protocol: commands per operation (INFO commandstats), key layout, server-clock expiry of shared holders,
 * and pub/sub subscriptions that do not leak.
 */
class RedisLockProviderProtocolTest {

	private static final OwnerDetails OWNER = new OwnerDetails("protocol-test", "test-host");

	@RegisterExtension
	static final RedisServerExtension server = new RedisServerExtension();

	private RedisLockProvider provider;

	@BeforeEach
	void createProvider() {
		provider = new RedisLockProvider(server.factory(), RedisLockSettings.defaults());
	}

	@AfterEach
	void closeProvider() {
		provider.close();
	}

	@Test
	void uncontendedAcquireAndReleaseAreExactlyTwoEvalshaRoundTrips() {
		cycle("warm-up"); // loads the scripts (EVALSHA, NOSCRIPT, EVAL) once
		Map<String, Long> before = commandStats();
		cycle("measured");
		Map<String, Long> delta = delta(before, commandStats());
		delta.remove("info"); // the INFO that read "before"
		// commandstats also counts the commands a script runs, so the figure splits into round trips and script work:
		// acquire = SET NX, TIME, HMGET (last token and holder) + HSET + PEXPIRE (retention) of the fence hash;
		// release = GET, DEL of the lock and the waiting mark (nobody marked it, so no queue lookup and no PUBLISH),
		// HSET of the releasing token (replay safety).
		assertThat(delta.remove("evalsha")).isEqualTo(2L);
		assertThat(delta).containsExactlyInAnyOrderEntriesOf(Map.of("set", 1L, "time", 1L, "hmget", 1L, "hset", 2L,
				"pexpire", 1L, "get", 1L, "del", 1L));
	}

	@Test
	void theStoreTimeIsTheServersTimeReadWithOneTimeCommand() {
		provider.storeTime(); // connects
		Map<String, Long> before = commandStats();
		Instant sent = Instant.now();
		Instant storeTime = provider.storeTime();
		Instant answered = Instant.now();
		Map<String, Long> delta = delta(before, commandStats());
		delta.remove("info");
		assertThat(delta).containsExactlyEntriesOf(Map.of("time", 1L));
		// The server runs on this machine's clock, so its TIME falls inside the round trip (to the microsecond).
		assertThat(storeTime).isBetween(sent.minusMillis(1), answered.plusMillis(1));
	}

	@Test
	void aReleaseLooksAtTheQueueAndPublishesOnlyWhenAWaiterMarkedTheLock() {
		Lease held = provider.tryAcquire(request("marked", "holder")).orElseThrow();
		try (var waiter = provider.begin(request("marked", "waiter"))) {
			assertThat(waiter.tryOnce()).isEmpty(); // refused: queues and marks the lock as waited for
			assertThat(server.redis().hasKey("distlock:{marked}:waiting")).isTrue();
			Map<String, Long> before = commandStats();
			assertThat(held.release()).isTrue();
			Map<String, Long> delta = delta(before, commandStats());
			// The mark went with the lock, so the release looked at the queue and handed the lock to the waiter.
			assertThat(delta).containsEntry("zrange", 1L).containsEntry("publish", 1L);
			assertThat(server.redis().opsForValue().get("distlock:{marked}")).isEqualTo("waiter");
			waiter.tryOnce().orElseThrow().lease().release();
		}
		assertThat(server.redis().hasKey("distlock:{marked}")).isFalse();
	}

	@Test
	void aFullNoevictionRedisRefusesAcquiresAsStoreErrorsButStillReleasesAndExtends() {
		Lease held = provider.tryAcquire(request("full", "holder")).orElseThrow();
		server.redis().execute((RedisCallback<Object>) c -> {
			c.serverCommands().setConfig("maxmemory-policy", "noeviction");
			c.serverCommands().setConfig("maxmemory", "1");
			return null;
		});
		try {
			assertThatThrownBy(() -> provider.tryAcquire(request("full-other", "t")))
				.isInstanceOf(dev.distlock.core.LockStoreException.class)
				.hasMessageContaining("OOM");
			assertThat(held.extend(Duration.ofSeconds(30))).isTrue();
			assertThat(held.release()).isTrue();
		}
		finally {
			server.redis().execute((RedisCallback<Object>) c -> {
				c.serverCommands().setConfig("maxmemory", "0");
				return null;
			});
		}
		assertThat(server.redis().hasKey("distlock:{full}")).isFalse();
		assertThat(server.redis().hasKey("distlock:{full-other}")).isFalse();
	}

	@Test
	void aSameSlotGroupIsOneRoundTrip() {
		provider.tryAcquireAll(List.of(request("warm{t}a", "w"), request("warm{t}b", "w")))
			.orElseThrow()
			.forEach(Lease::release);
		long micros = serverMillis() * 1000;
		Map<String, Long> before = commandStats();
		List<Lease> leases = provider.tryAcquireAll(List.of(request("order{42}:a", "g"), request("order{42}:b", "g")))
			.orElseThrow();
		Map<String, Long> delta = delta(before, commandStats());
		assertThat(delta.get("evalsha")).isEqualTo(1L);
		// Fresh keys: each token is the server's TIME in microseconds, read once by the script.
		assertThat(leases.get(0).fencingToken()).isGreaterThanOrEqualTo(micros)
			.isEqualTo(leases.get(1).fencingToken());
		assertThat(server.redis().opsForValue().get("distlock:{order{42}:a}")).isEqualTo("g");
		leases.forEach(Lease::release);
	}

	@Test
	void keysUseHashTagsAndTheFenceHashOutlivesTheLockByTheRetention() {
		Lease lease = provider.tryAcquire(request("layout", "token-1")).orElseThrow();
		assertThat(server.redis().opsForValue().get("distlock:{layout}")).isEqualTo("token-1");
		assertThat(server.redis().<String, String>opsForHash().entries("distlock:{layout}:fence"))
			// The holder is one field; its grant time is the token's (server TIME in microseconds / 1000).
			.containsOnlyKeys("n", "h")
			.containsEntry("n", String.valueOf(lease.fencingToken()))
			.containsEntry("h", "protocol-test\ntest-host");
		assertThat(lease.release()).isTrue();
		assertThat(server.redis().hasKey("distlock:{layout}")).isFalse();
		// The fence hash outlives the lock by the retention (a day by default), then goes.
		assertThat(server.redis().getExpire("distlock:{layout}:fence")).isPositive()
			.isLessThanOrEqualTo(RedisLockSettings.DEFAULT_FENCE_RETENTION.toSeconds());
		assertThat(provider.tryAcquire(request("layout", "token-2")).orElseThrow().fencingToken())
			.isGreaterThan(lease.fencingToken());
	}

	@Test
	void fencingTokensAreTheServersMicrosecondsOrTheLastTokenPlusOne() {
		long micros = serverMillis() * 1000;
		long first = provider.tryAcquire(request("fence-floor", "t1")).orElseThrow().fencingToken();
		assertThat(first).isBetween(micros, micros + 60_000_000L);
		// A counter ahead of the clock (tokens issued faster than one per microsecond) keeps counting by one.
		long ahead = first + 3_600_000_000L;
		server.redis().opsForHash().put("distlock:{fence-floor}:fence", "n", String.valueOf(ahead));
		server.redis().delete("distlock:{fence-floor}");
		assertThat(provider.tryAcquire(request("fence-floor", "t2")).orElseThrow().fencingToken()).isEqualTo(ahead + 1);
		assertThat(server.redis().opsForHash().get("distlock:{fence-floor}:fence", "n"))
			.isEqualTo(String.valueOf(ahead + 1));
	}

	@Test
	void statusReadsTheGrantTimeFromTheTokenOrFromTheHolderWhenTheCounterDecidedTheToken() {
		long before = serverMillis();
		Lease lease = provider.tryAcquire(request("when", "t1")).orElseThrow();
		LockInfo info = statusOf("when");
		assertThat(info.owner()).isEqualTo("protocol-test");
		assertThat(info.host()).isEqualTo("test-host");
		assertThat(info.mode()).isEqualTo(LockMode.EXCLUSIVE);
		assertThat(info.acquiredAt()).isEqualTo(Instant.ofEpochMilli(lease.fencingToken() / 1000));
		assertThat(info.acquiredAt().toEpochMilli()).isBetween(before, serverMillis());
		assertThat(lease.release()).isTrue();

		// A counter an hour ahead of the clock: the token is the counter's, so the grant time is written with it.
		long ahead = lease.fencingToken() + 3_600_000_000L;
		server.redis().opsForHash().put("distlock:{when}:fence", "n", String.valueOf(ahead));
		long again = serverMillis();
		assertThat(provider.tryAcquire(request("when", "t2")).orElseThrow().fencingToken()).isEqualTo(ahead + 1);
		info = statusOf("when");
		assertThat(info.owner()).isEqualTo("protocol-test");
		assertThat(info.host()).isEqualTo("test-host");
		assertThat(info.acquiredAt().toEpochMilli()).isBetween(again, serverMillis());
	}

	private LockInfo statusOf(String key) {
		return provider.status(StatusQuery.all())
			.stream()
			.filter(info -> info.key().equals(key))
			.findFirst()
			.orElseThrow();
	}

	@Test
	void sharedHoldersExpireByTheServersClock() {
		provider.tryAcquire(new LockRequest("clock", "s1", Duration.ofSeconds(10), LockMode.SHARED, 2, OWNER))
			.orElseThrow();
		long serverNow = serverMillis();
		Double score = server.redis().opsForZSet().score("distlock:{clock}", "s1");
		assertThat(score).isNotNull();
		assertThat(score.longValue() - serverNow).isBetween(9_000L, 10_000L);
		// The set lives exactly as long as its longest-lived holder, by the server's clock.
		assertThat(server.redis().getExpire("distlock:{clock}", TimeUnit.MILLISECONDS)).isBetween(9_000L, 10_000L);
	}

	@Test
	void thousandContendedCyclesLeaveNoSubscriptionAndNoNewThreads() throws Exception {
		LockTemplate template = LockTemplate.builder(provider).owner(OWNER).build();
		LockOptions waiting = LockOptions.builder()
			.timeout(Duration.ofSeconds(10))
			.delay(Duration.ofMillis(50))
			.waitUpTo(Duration.ofSeconds(30))
			.build();
		ExecutorService executor = Executors.newFixedThreadPool(4);
		try {
			contend(executor, template, waiting, 40); // warm up every pool the run uses
			int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
			long subscribesBefore = commandStats().getOrDefault("subscribe", 0L);

			contend(executor, template, waiting, 1_000);

			var probe = provider.channels().subscribe("probe", false, () -> { });
			try (probe) { // proves the PUBSUB CHANNELS query sees a live subscription
				assertThat(probe.awaitLive(Duration.ofSeconds(5))).isTrue();
				assertThat(channels()).contains("distlock:{probe}:released");
			}

			long subscribes = commandStats().getOrDefault("subscribe", 0L) - subscribesBefore;
			// The contended key stays subscribed between waits (linger), so 1,000 cycles need at most a few SUBSCRIBEs.
			assertThat(subscribes).isBetween(1L, 10L);
			assertThat(provider.channels().watchedChannels()).isZero();
			// No manual sweep: the provider's own sweep must unsubscribe the lingering channel once LINGER has passed.
			assertThat(awaitNoChannels()).isEmpty();
			assertThat(provider.channels().subscribedChannels()).isZero();
			assertThat(ManagementFactory.getThreadMXBean().getThreadCount()).isLessThanOrEqualTo(threadsBefore);
		}
		finally {
			executor.shutdownNow();
			template.close();
		}
	}

	private static void contend(ExecutorService executor, LockTemplate template, LockOptions options, int cycles)
			throws Exception {
		int threads = 4;
		List<Future<?>> futures = new java.util.ArrayList<>();
		for (int t = 0; t < threads; t++) {
			futures.add(executor.submit(() -> {
				for (int i = 0; i < cycles / threads; i++) {
					template.acquire("contended", options).release();
				}
				return null;
			}));
		}
		for (Future<?> future : futures) {
			future.get(120, TimeUnit.SECONDS);
		}
	}

	private void cycle(String key) {
		assertThat(provider.tryAcquire(request(key, "t")).orElseThrow().release()).isTrue();
	}

	/**
	 * Polls PUBSUB CHANNELS for up to 3 s plus the linger: the sweep runs every LINGER / 2, and UNSUBSCRIBE is sent
	 * without waiting for its reply.
	 */
	private static List<String> awaitNoChannels() throws InterruptedException {
		List<String> channels = List.of();
		long deadline = System.nanoTime() + PubSubChannels.LINGER.plusSeconds(3).toNanos();
		while (System.nanoTime() < deadline) {
			channels = channels();
			if (channels.isEmpty()) {
				break;
			}
			Thread.sleep(20);
		}
		return channels;
	}

	private static List<String> channels() {
		// Spring's raw execute flattens array replies, so ask through the server.factory()'s own Lettuce client.
		RedisClient client = (RedisClient) server.factory().getRequiredNativeClient();
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			return connection.sync().pubsubChannels();
		}
	}

	private static long serverMillis() {
		return server.redis().execute((RedisCallback<Long>) c -> c.serverCommands().time(TimeUnit.MILLISECONDS));
	}

	static Map<String, Long> commandStats() {
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

	static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
		Map<String, Long> delta = new TreeMap<>();
		after.forEach((name, count) -> {
			long diff = count - before.getOrDefault(name, 0L);
			if (diff != 0) {
				delta.put(name, diff);
			}
		});
		return delta;
	}

	private static LockRequest request(String key, String token) {
		return new LockRequest(key, token, Duration.ofSeconds(30), LockMode.EXCLUSIVE, 1, OWNER);
	}

}
