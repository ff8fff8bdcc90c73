package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.core.LockExtendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockMode;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockReleaseException;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.redis.testsupport.RedisServerProcess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * What the provider does when Redis goes away, comes back empty, or a holder outlives its lease. Each test has its own
 * server, since several stop it.
 */
class RedisLockProviderFailureTest {

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	private static final OwnerDetails OWNER = new OwnerDetails("failure-test", "test-host");

	private RedisServerProcess server;

	private LettuceConnectionFactory factory;

	private RedisLockProvider provider;

	private StringRedisTemplate redis;

	@BeforeEach
	void start() {
		server = RedisServerProcess.startOnFreePort();
		factory = server.connectionFactory(COMMAND_TIMEOUT);
		provider = new RedisLockProvider(factory, RedisLockSettings.defaults());
		redis = new StringRedisTemplate(factory);
	}

	@AfterEach
	void stop() {
		provider.close();
		factory.destroy();
		server.close();
	}

	@Test
	void acquireWithTheServerStoppedFailsWithAStoreErrorNamingTheKeyInsteadOfHanging() {
		provider.ping(); // the shared connection exists, as in a running application
		server.stop();
		LockTemplate template = LockTemplate.builder(provider).owner(OWNER).build();
		// Each call fails within the configured command timeout, plus a margin for a loaded 2-core machine.
		Duration bound = COMMAND_TIMEOUT.plusSeconds(3);
		// The provider says what failed; the template adds the key and the operation.
		assertTimeoutPreemptively(bound, () -> assertThatThrownBy(
				() -> provider.tryAcquire(request("down", "t1", Duration.ofSeconds(5))))
			.isInstanceOf(LockStoreException.class));
		assertTimeoutPreemptively(bound, () -> assertThatThrownBy(
				() -> template.tryAcquire("down", LockOptions.builder().timeout(Duration.ofSeconds(5)).build()))
			.isInstanceOf(LockStoreException.class)
			.hasMessageContaining("down"));
		assertTimeoutPreemptively(bound,
				() -> assertThatThrownBy(provider::ping).isInstanceOf(LockStoreException.class));
		template.close();
	}

	@Test
	void restartMidLockMakesRenewalMarkTheHandleLostAndTellsTheListener() throws Exception {
		CountDownLatch lost = new CountDownLatch(1);
		AtomicReference<String> lostKey = new AtomicReference<>();
		LockTemplate template = LockTemplate.builder(provider).owner(OWNER).listener(LockListener.onLost(handle -> {
			lostKey.set(handle.key());
			lost.countDown();
		})).build();
		LockHandle handle = template.acquire("job",
				LockOptions.builder().timeout(Duration.ofMillis(900)).autoRenew(true).build());
		assertThat(provider.isLocked("job")).isTrue();

		server.restart(); // no persistence: the server comes back without the lock

		assertThat(lost.await(15, TimeUnit.SECONDS)).isTrue();
		assertThat(lostKey.get()).isEqualTo("job");
		assertThat(handle.isHeld()).isFalse();
		assertThat(provider.isLocked("job")).isFalse();
		template.close();
	}

	@Test
	void fencingTokensAfterARestartWithoutPersistenceExceedEveryTokenIssuedBefore() {
		long before = 0;
		for (int i = 0; i < 5; i++) {
			Lease lease = provider.tryAcquire(request("fenced", "before-" + i, Duration.ofSeconds(30))).orElseThrow();
			assertThat(lease.fencingToken()).isGreaterThan(before);
			before = lease.fencingToken();
			assertThat(lease.release()).isTrue();
		}

		server.restart(); // no persistence: the counter is gone with the rest of the data
		assertThat(redis.hasKey("distlock:{fenced}:fence")).isFalse();

		Lease after = provider.tryAcquire(request("fenced", "after", Duration.ofSeconds(30))).orElseThrow();
		assertThat(after.fencingToken()).isGreaterThan(before);
		assertThat(after.release()).isTrue();
	}

	@Test
	void staleHolderReleaseAndExtendAfterTakeoverAreRefusedAndLeaveTheNewHolderUndisturbed() throws Exception {
		Lease stale = provider.tryAcquire(request("k", "stale-token", Duration.ofMillis(100))).orElseThrow();
		Thread.sleep(250);
		Lease current = provider.tryAcquire(request("k", "new-token", Duration.ofSeconds(30))).orElseThrow();

		assertThat(stale.extend(Duration.ofSeconds(30))).isFalse();
		assertThat(stale.release()).isFalse();

		assertThat(redis.opsForValue().get("distlock:{k}")).isEqualTo("new-token");
		assertThat(redis.getExpire("distlock:{k}", TimeUnit.MILLISECONDS)).isGreaterThan(25_000);
		assertThat(current.fencingToken()).isGreaterThan(stale.fencingToken());
		assertThat(current.release()).isTrue();
	}

	@Test
	void staleHandleThrowsTypedErrorsAfterTakeover() throws Exception {
		LockTemplate template = LockTemplate.builder(provider).owner(OWNER).build();
		// A lease a loaded machine's round trip cannot use up (the template drops a grant whose lease ran out on the
		// way); then wait until Redis expired it, however long the machine takes.
		LockHandle stale = template.acquire("h", LockOptions.builder().timeout(Duration.ofSeconds(1)).build());
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (Boolean.TRUE.equals(redis.hasKey("distlock:{h}"))) {
			assertThat(System.nanoTime() - deadline).as("the stale lease expired in Redis").isNegative();
			Thread.sleep(20);
		}
		LockHandle current = template.acquire("h", LockOptions.builder().timeout(Duration.ofSeconds(30)).build());
		assertThatThrownBy(() -> stale.extend(Duration.ofSeconds(30))).isInstanceOf(LockExtendException.class)
			.hasMessageContaining("h");
		assertThatThrownBy(stale::release).isInstanceOf(LockReleaseException.class).hasMessageContaining("h");
		assertThat(current.isHeld()).isTrue();
		assertThat(redis.getExpire("distlock:{h}", TimeUnit.MILLISECONDS)).isGreaterThan(25_000);
		template.close();
	}

	@Test
	void staleSharedHolderCannotReleaseOrExtendAfterAnExclusiveTakeover() throws Exception {
		Lease stale = provider
			.tryAcquire(new LockRequest("s", "shared-token", Duration.ofMillis(100), LockMode.SHARED, 2, OWNER))
			.orElseThrow();
		Thread.sleep(250);
		Lease exclusive = provider.tryAcquire(request("s", "exclusive-token", Duration.ofSeconds(30))).orElseThrow();
		assertThat(stale.release()).isFalse();
		assertThat(stale.extend(Duration.ofSeconds(30))).isFalse();
		assertThat(redis.opsForValue().get("distlock:{s}")).isEqualTo("exclusive-token");
		assertThat(exclusive.fencingToken()).isGreaterThan(stale.fencingToken());
		assertThat(List.of(exclusive.release())).containsExactly(true);
	}

	private static LockRequest request(String key, String token, Duration lease) {
		return new LockRequest(key, token, lease, LockMode.EXCLUSIVE, 1, OWNER);
	}

}
