package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.RedisStaticMasterReplicaConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockMode;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Acquisition;
import dev.distlock.core.spi.FirstAttempt;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.StatusQuery;
import dev.distlock.redis.testsupport.RedisServerExtension;
import dev.distlock.redis.testsupport.RedisServerProcess;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A plain exclusive lock with {@code fencing=false}: one {@code SET NX GET PX} to take it, {@code release.lua}'s lean
 * form to let it go, nothing in Redis but the lock key, and the answers of replayed commands.
 */
class RedisLeanLocksTest {

	private static final String NS = "lean";

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final OwnerDetails OWNER = new OwnerDetails("lean-test", "lean-host");

	@RegisterExtension
	static final RedisServerExtension server = new RedisServerExtension(Duration.ofSeconds(10));

	private RedisLockProvider provider;

	/** Another client, as another JVM would be: its own connection factory and provider. */
	private LettuceConnectionFactory otherFactory;

	private RedisLockProvider other;

	@BeforeEach
	void open() {
		RedisLockSettings settings = new RedisLockSettings(NS, true).withFencing(false);
		provider = new RedisLockProvider(server.factory(), settings);
		otherFactory = server.process().connectionFactory();
		other = new RedisLockProvider(otherFactory, settings);
	}

	@AfterEach
	void close() {
		other.close();
		otherFactory.destroy();
		provider.close();
		Set<String> keys = server.redis().keys(NS + ":*");
		if (!keys.isEmpty()) {
			server.redis().delete(keys);
		}
	}

	@Test
	void aLeanGrantLeavesOnlyItsLockKeyHoldingTheOwnerTokenWithTheLease() {
		Lease lease = provider.tryAcquire(request("k", "t-1")).orElseThrow();

		assertThat(lease.fencingToken()).isZero();
		assertThat(server.redis().keys(NS + ":*")).containsExactly(NS + ":{k}");
		assertThat(server.redis().opsForValue().get(NS + ":{k}")).isEqualTo("t-1");
		assertThat(server.redis().getExpire(NS + ":{k}", TimeUnit.MILLISECONDS)).isBetween(LEASE.toMillis() - 5_000,
				LEASE.toMillis());
		assertThat(provider.tryAcquire(request("k", "t-2"))).as("another token").isEmpty();
	}

	@Test
	void aReplayedAcquireAnswersGrantedAndChangesNothing() {
		LockRequest request = request("k", "t-1");
		provider.tryAcquire(request).orElseThrow();

		Lease replayed = provider.tryAcquire(request).orElseThrow();
		FirstAttempt replayedWaiting = provider.start(request);

		assertThat(replayed.fencingToken()).isZero();
		assertThat(replayedWaiting).isInstanceOf(Acquisition.Granted.class);
		assertThat(server.redis().keys(NS + ":*")).containsExactly(NS + ":{k}");
		assertThat(server.redis().opsForValue().get(NS + ":{k}")).isEqualTo("t-1");
		assertThat(replayed.release()).isTrue();
		assertThat(server.redis().keys(NS + ":*")).isEmpty();
	}

	@Test
	void aReplayedReleaseAnswersReleasedWhileTheLeaseRunsAndLeavesNothing() {
		Lease lease = provider.tryAcquire(request("k", "t-1")).orElseThrow();

		assertThat(lease.release()).isTrue();
		assertThat(lease.release()).as("replayed").isTrue();
		assertThat(server.redis().keys(NS + ":*")).as("no fence hash, no replay record").isEmpty();
	}

	@Test
	void aReleaseAfterTheLeaseRanOutAnswersLost() throws Exception {
		Lease lease = provider.tryAcquire(new LockRequest("k", "t-1", Duration.ofMillis(200), LockMode.EXCLUSIVE, 1,
				OWNER)).orElseThrow();
		Thread.sleep(400);

		assertThat(lease.release()).isFalse();
	}

	@Test
	void aReleaseWhileAnotherTokenHoldsAnswersLostAndLeavesTheirLock() {
		Lease first = provider.tryAcquire(request("k", "t-1")).orElseThrow();
		assertThat(provider.forceRelease("k")).isTrue();
		Lease second = provider.tryAcquire(request("k", "t-2")).orElseThrow();

		assertThat(first.release()).isFalse();
		assertThat(first.extend(LEASE)).isFalse();
		assertThat(first.isHeld()).isFalse();
		assertThat(server.redis().opsForValue().get(NS + ":{k}")).isEqualTo("t-2");
		assertThat(second.release()).isTrue();
	}

	/**
	 * The one answer that differs from fencing mode: a key deleted by force (or lost with the data) while the local
	 * lease runs cannot be told from an earlier run of this release, and nobody else holds it then.
	 */
	@Test
	void aKeyDeletedByForceWhileTheLeaseRunsIsAnsweredReleased() {
		Lease lease = provider.tryAcquire(request("k", "t-1")).orElseThrow();
		assertThat(provider.forceRelease("k")).isTrue();

		assertThat(lease.release()).isTrue();
		assertThat(server.redis().keys(NS + ":*")).isEmpty();
	}

	@Test
	void extendAndHolderCheckAreOwnerCheckedAndMakeNoFenceHash() {
		Lease lease = provider.tryAcquire(request("k", "t-1")).orElseThrow();

		assertThat(lease.extend(Duration.ofSeconds(60))).isTrue();
		assertThat(lease.isHeld()).isTrue();
		assertThat(server.redis().getExpire(NS + ":{k}", TimeUnit.MILLISECONDS)).isGreaterThan(LEASE.toMillis());
		assertThat(server.redis().keys(NS + ":*")).containsExactly(NS + ":{k}");
		assertThat(lease.release()).isTrue();
		assertThat(lease.extend(LEASE)).isFalse();
		assertThat(lease.isHeld()).isFalse();
	}

	@Test
	void statusShowsALeanLockWithoutOwnerHostGrantTimeOrFencingToken() {
		provider.tryAcquire(request("k", "t-1")).orElseThrow();

		List<LockInfo> status = provider.status(StatusQuery.held());
		assertThat(status).hasSize(1);
		LockInfo info = status.get(0);
		assertThat(info.key()).isEqualTo("k");
		assertThat(info.mode()).isEqualTo(LockMode.EXCLUSIVE);
		assertThat(info.holders()).isEqualTo(1);
		assertThat(info.fencingToken()).isZero();
		assertThat(info.owner()).isNull();
		assertThat(info.host()).isNull();
		assertThat(info.acquiredAt()).isNull();
		assertThat(info.remaining()).isGreaterThan(LEASE.minusSeconds(5)).isLessThanOrEqualTo(LEASE);
		assertThat(provider.isLocked("k")).isTrue();
		assertThat(provider.forceRelease("k")).isTrue();
		assertThat(provider.isLocked("k")).isFalse();
		assertThat(server.redis().keys(NS + ":*")).isEmpty();
	}

	@Test
	void aSharedLockRefusesALeanAcquireWithoutAnError() {
		Lease reader = provider.tryAcquire(new LockRequest("k", "r-1", LEASE, LockMode.SHARED, 3, OWNER)).orElseThrow();

		assertThat(provider.tryAcquire(request("k", "t-1"))).isEmpty();
		FirstAttempt waiting = provider.start(request("k", "t-2"));
		assertThat(waiting).isInstanceOf(Acquisition.class);
		((Acquisition) waiting).close();
		assertThat(reader.release()).isTrue();
		assertThat(provider.tryAcquire(request("k", "t-1")).orElseThrow().fencingToken()).isZero();
	}

	@Test
	void aLeanHoldersReleaseHandsTheLockToAQueuedWaiterWithAFencingToken() throws Exception {
		LockTemplate holder = LockTemplate.builder(provider).owner(OWNER).build();
		LockTemplate waiter = LockTemplate.builder(other).owner(OWNER).build();
		try {
			LockHandle held = holder.acquire("k", LockOptions.builder().timeout(LEASE).build());
			assertThat(held.fencingToken()).isZero();
			CompletableFuture<Long> taken = CompletableFuture.supplyAsync(() -> {
				// Polls once every 10 s at most: only the hand-off can give it the lock within the test.
				try (LockHandle handle = waiter.acquire("k", LockOptions.builder().timeout(LEASE)
					.delay(Duration.ofSeconds(10)).waitUpTo(Duration.ofSeconds(20)).build())) {
					return handle.fencingToken();
				}
			});
			awaitQueued("k");

			held.release();

			assertThat(taken.get(5, TimeUnit.SECONDS)).as("the waiter's fencing token").isPositive();
			assertThat(server.redis().hasKey(NS + ":{k}")).isFalse();
			assertThat(server.redis().hasKey(NS + ":{k}:queue")).isFalse();
			Long fenceTtl = server.redis().getExpire(NS + ":{k}:fence", TimeUnit.MILLISECONDS);
			assertThat(fenceTtl).as("the hand-off's fence hash expires").isPositive();
		}
		finally {
			waiter.close();
			holder.close();
		}
	}

	/**
	 * A client that cannot open the provider's own connection (a static master/replica setup, whose client has no
	 * default URI) sends the SET through the template: the same answers.
	 */
	@Test
	void throughTheTemplateALeanLockIsTakenRefusedAndReleasedAlike() {
		LettuceConnectionFactory staticSetup = new LettuceConnectionFactory(
				new RedisStaticMasterReplicaConfiguration("127.0.0.1", server.process().port()),
				RedisServerProcess.clientConfiguration(Duration.ofSeconds(10)));
		staticSetup.afterPropertiesSet();
		staticSetup.start();
		try (RedisLockProvider viaTemplate = new RedisLockProvider(staticSetup,
				new RedisLockSettings(NS, true).withFencing(false))) {
			Lease lease = viaTemplate.tryAcquire(request("k", "t-1")).orElseThrow();
			assertThat(lease.fencingToken()).isZero();
			assertThat(viaTemplate.tryAcquire(request("k", "t-1"))).as("replayed").isPresent();
			assertThat(viaTemplate.tryAcquire(request("k", "t-2"))).as("another token").isEmpty();
			assertThat(server.redis().keys(NS + ":*")).containsExactly(NS + ":{k}");
			assertThat(lease.release()).isTrue();
			viaTemplate.tryAcquire(new LockRequest("s", "r-1", LEASE, LockMode.SHARED, 3, OWNER)).orElseThrow();
			assertThat(viaTemplate.tryAcquire(request("s", "t-1"))).as("a shared lock's set").isEmpty();
		}
		finally {
			staticSetup.destroy();
		}
	}

	/**
	 * What Redis runs for one uncontended cycle (commands called inside a script count in {@code commandstats}): the
	 * plain SET, then one script that runs GET and DEL. Nothing else: no TIME, no hash, no PEXPIRE.
	 */
	@Test
	void anUncontendedCycleIsOneSetAndOneScriptRunningGetAndDel() {
		provider.tryAcquire(request("warm", "w")).orElseThrow().release(); // connection open, script loaded
		Map<String, Long> before = calls();

		Lease lease = provider.tryAcquire(request("k", "t-1")).orElseThrow();
		assertThat(lease.release()).isTrue();

		Map<String, Long> after = calls();
		after.replaceAll((command, count) -> count - before.getOrDefault(command, 0L));
		after.values().removeIf(count -> count == 0);
		after.remove("info");
		assertThat(after).containsExactlyInAnyOrderEntriesOf(Map.of("set", 1L, "evalsha", 1L, "get", 1L, "del", 1L));
	}

	private static Map<String, Long> calls() {
		Properties info = server.redis()
			.execute((RedisCallback<Properties>) c -> c.serverCommands().info("commandstats"));
		Map<String, Long> calls = new TreeMap<>();
		info.stringPropertyNames().stream().filter(name -> name.startsWith("cmdstat_")).forEach(name -> {
			String line = info.getProperty(name);
			calls.put(name.substring("cmdstat_".length()),
					Long.parseLong(line.substring(line.indexOf("calls=") + 6, line.indexOf(','))));
		});
		return calls;
	}

	private static void awaitQueued(String key) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (System.nanoTime() - deadline < 0) {
			Long queued = server.redis().opsForZSet().zCard(NS + ":{" + key + "}:queue");
			if (queued != null && queued > 0) {
				return;
			}
			Thread.sleep(5);
		}
		throw new AssertionError("No waiter queued on '" + key + "'");
	}

	private static LockRequest request(String key, String token) {
		return new LockRequest(key, token, LEASE, LockMode.EXCLUSIVE, 1, OWNER);
	}

}
