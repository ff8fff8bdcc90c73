package dev.distlock.redis;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.distlock.core.LockMode;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.redis.testsupport.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redis layout of lock IDs: the ids hash beside the lock, the ID's index written before the grant, what a crash
 * between the two leaves, and that the same ID and the same token can never be mistaken for another holder.
 */
class RedisLockIdsTest {

	private static final OwnerDetails OWNER = new OwnerDetails("ids-test", "test-host");

	private static final Duration LEASE = Duration.ofSeconds(30);

	@RegisterExtension
	static final RedisServerExtension server = new RedisServerExtension();

	private RedisLockProvider provider;

	@BeforeEach
	void openProvider() {
		provider = new RedisLockProvider(server.factory(), new RedisLockSettings("ids", true));
	}

	@AfterEach
	void closeProvider() {
		provider.close();
	}

	@Test
	void aCrashBetweenTheIndexWriteAndTheGrantLeavesAnEntryThatUnlockAndRenewDrop() {
		// What the index write leaves when the client dies before the acquire script runs: an entry, no lock.
		server.redis().opsForZSet().add("ids:id:{job-1}", "lost-token orphan", 1);
		server.redis().opsForZSet().add("ids:id:{job-2}", "lost-token orphan", 1);

		assertThat(provider.unlock("job-1")).isEmpty();
		assertThat(server.redis().hasKey("ids:id:{job-1}")).isFalse();
		assertThat(provider.renew("job-2", LEASE).renewed()).isEmpty();
		assertThat(provider.renew("job-2", LEASE).expired()).isEmpty();
		assertThat(server.redis().hasKey("ids:id:{job-2}")).isFalse();
		assertThat(provider.isLocked("orphan")).isFalse();
	}

	@Test
	void aLockWithAnIdIsIndexedBeforeItsGrantAndItsReleaseByHandleLeavesNoRecordOrEntry() {
		Lease lease = provider.tryAcquire(request("indexed", "t-1", LockMode.EXCLUSIVE, "job")).orElseThrow();
		assertThat(server.redis().opsForZSet().range("ids:id:{job}", 0, -1)).containsExactly("t-1 indexed");
		assertThat(server.redis().opsForHash().keys("ids:{indexed}:ids")).containsExactly("t-1");
		assertThat(server.redis().getExpire("ids:id:{job}")).isPositive();

		assertThat(lease.release()).isTrue();
		assertThat(server.redis().hasKey("ids:{indexed}")).isFalse();
		assertThat(server.redis().hasKey("ids:{indexed}:ids")).isFalse();
		assertThat(server.redis().hasKey("ids:id:{job}")).isFalse();
	}

	@Test
	void aHolderWhoseLockWasUnlockedByIdFindsItLostNotReleased() {
		Lease exclusive = provider.tryAcquire(request("x", "t-x", LockMode.EXCLUSIVE, "job")).orElseThrow();
		Lease shared = provider.tryAcquire(request("s", "t-s", LockMode.SHARED, "job")).orElseThrow();

		assertThat(provider.unlock("job")).extracting(LockInfo::key).containsExactly("s", "x");
		assertThat(exclusive.release()).isFalse();
		assertThat(shared.release()).isFalse();
		// The unlock itself, run again, finds nothing left.
		assertThat(provider.unlock("job")).isEmpty();
	}

	@Test
	void aPlainLockWritesNoIdKeysAndALockWithoutExpiryHasNoTtl() {
		Lease plain = provider.tryAcquire(request("plain", "t-p", LockMode.EXCLUSIVE, null)).orElseThrow();
		assertThat(server.redis().hasKey("ids:{plain}:ids")).isFalse();
		assertThat(server.redis().keys("ids:id:*")).isEmpty();

		LockRequest forever = new LockRequest("forever", "t-f", Duration.ofMillis(300), LockMode.SHARED, 3, OWNER,
				null, true);
		Lease kept = provider.tryAcquire(forever).orElseThrow();
		assertThat(server.redis().getExpire("ids:{forever}")).isEqualTo(-1L);
		assertThat(server.redis().opsForZSet().score("ids:{forever}", "t-f")).isEqualTo(Double.POSITIVE_INFINITY);
		assertThat(kept.release()).isTrue();
		assertThat(server.redis().hasKey("ids:{forever}")).isFalse();
		assertThat(plain.release()).isTrue();
	}

	private static LockRequest request(String key, String token, LockMode mode, @Nullable String lockId) {
		return new LockRequest(key, token, LEASE, mode, mode == LockMode.SHARED ? 3 : 1, OWNER, lockId, false);
	}

}
