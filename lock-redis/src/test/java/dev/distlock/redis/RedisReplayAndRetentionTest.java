package dev.distlock.redis;

import java.time.Duration;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.distlock.core.LockMode;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Acquisition;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.redis.testsupport.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a command run twice (a client replaying it after a reconnect) and time do to the keyspace: acquire and release
 * are idempotent per owner token, and a key locked once leaves nothing behind after the fence retention, while its
 * fencing tokens keep increasing across the fence's expiry.
 */
class RedisReplayAndRetentionTest {

	private static final OwnerDetails OWNER = new OwnerDetails("replay-test", "test-host");

	private static final Duration LEASE = Duration.ofSeconds(30);

	@RegisterExtension
	static final RedisServerExtension server = new RedisServerExtension();

	private RedisLockProvider provider;

	@AfterEach
	void closeProvider() {
		if (provider != null) {
			provider.close();
		}
	}

	@Test
	void anAcquireRunTwiceWithOneTokenAnswersYoursWithTheSameFencingToken() {
		provider = new RedisLockProvider(server.factory(), new RedisLockSettings("replay", true));
		LockRequest request = request("twice", "token-1", LockMode.EXCLUSIVE);
		Lease first = provider.tryAcquire(request).orElseThrow();
		Lease replayed = provider.tryAcquire(request).orElseThrow();
		assertThat(replayed.fencingToken()).isEqualTo(first.fencingToken());
		assertThat(provider.tryAcquire(request("twice", "token-2", LockMode.EXCLUSIVE))).isEmpty();
		assertThat(first.release()).isTrue();
		assertThat(server.redis().hasKey("replay:{twice}")).isFalse();
	}

	@Test
	void aSharedAcquireRunTwiceTakesOnePlaceNotTwo() {
		provider = new RedisLockProvider(server.factory(), new RedisLockSettings("replay", true));
		LockRequest request = new LockRequest("shared-twice", "s-1", LEASE, LockMode.SHARED, 2, OWNER);
		provider.tryAcquire(request).orElseThrow();
		provider.tryAcquire(request).orElseThrow();
		assertThat(server.redis().opsForZSet().zCard("replay:{shared-twice}")).isEqualTo(1L);
		assertThat(provider.tryAcquire(new LockRequest("shared-twice", "s-2", LEASE, LockMode.SHARED, 2, OWNER)))
			.isPresent();
	}

	@Test
	void aReleaseRunTwiceAnswersReleasedBothTimesAndLeavesTheNextHolderAlone() throws Exception {
		provider = new RedisLockProvider(server.factory(), new RedisLockSettings("replay", true));
		Lease holder = provider.tryAcquire(request("release-twice", "holder", LockMode.EXCLUSIVE)).orElseThrow();
		try (Acquisition waiter = provider.begin(request("release-twice", "waiter", LockMode.EXCLUSIVE))) {
			assertThat(waiter.tryOnce()).isEmpty(); // queues
			assertThat(holder.release()).isTrue(); // hands over to the waiter
			assertThat(holder.release()).isTrue(); // the replay: reported released, changes nothing
			assertThat(server.redis().opsForValue().get("replay:{release-twice}")).isEqualTo("waiter");
			Lease taken = waiter.tryOnce().orElseThrow().lease();
			assertThat(taken.release()).isTrue();
		}
		assertThat(server.redis().hasKey("replay:{release-twice}")).isFalse();
	}

	@Test
	void keysLockedOnceLeaveNothingBehindAfterTheFenceRetention() throws Exception {
		provider = new RedisLockProvider(server.factory(),
				new RedisLockSettings("retained", true, Duration.ofSeconds(1)));
		for (int i = 0; i < 200; i++) {
			LockRequest request = request("order:" + i, "t" + i, LockMode.EXCLUSIVE, Duration.ofMillis(500));
			assertThat(provider.tryAcquire(request).orElseThrow().release()).isTrue();
		}
		LockRequest shared = new LockRequest("catalog", "s", Duration.ofMillis(500), LockMode.SHARED, 2, OWNER);
		assertThat(provider.tryAcquire(shared).orElseThrow().release()).isTrue();
		assertThat(keys("retained:*")).hasSize(201); // the fence hashes, for now
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (!keys("retained:*").isEmpty() && System.nanoTime() < deadline) {
			Thread.sleep(100);
		}
		assertThat(keys("retained:*")).isEmpty();
	}

	@Test
	void fencingTokensOfOneKeyStillIncreaseAcrossTheFenceExpiry() throws Exception {
		provider = new RedisLockProvider(server.factory(),
				new RedisLockSettings("expiring", true, Duration.ofSeconds(1)));
		Lease first = provider.tryAcquire(request("k", "t1", LockMode.EXCLUSIVE, Duration.ofMillis(200)))
			.orElseThrow();
		assertThat(first.release()).isTrue();
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (Boolean.TRUE.equals(server.redis().hasKey("expiring:{k}:fence")) && System.nanoTime() < deadline) {
			Thread.sleep(50);
		}
		assertThat(server.redis().hasKey("expiring:{k}:fence")).isFalse();
		Lease second = provider.tryAcquire(request("k", "t2", LockMode.EXCLUSIVE)).orElseThrow();
		assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
		assertThat(server.redis().getExpire("expiring:{k}:fence")).isPositive();
		second.release();
	}

	@Test
	void aFenceNeverExpiresBeforeTheLeaseItServes() {
		provider = new RedisLockProvider(server.factory(),
				new RedisLockSettings("long-lease", true, Duration.ofSeconds(1)));
		Lease lease = provider.tryAcquire(request("k", "t", LockMode.EXCLUSIVE, Duration.ofMinutes(10)))
			.orElseThrow();
		assertThat(server.redis().getExpire("long-lease:{k}:fence")).isGreaterThan(Duration.ofMinutes(9).toSeconds());
		lease.release();
	}

	private static Set<String> keys(String pattern) {
		return server.redis().keys(pattern);
	}

	private static LockRequest request(String key, String token, LockMode mode) {
		return request(key, token, mode, LEASE);
	}

	private static LockRequest request(String key, String token, LockMode mode, Duration lease) {
		return new LockRequest(key, token, lease, mode, 1, OWNER);
	}

}
