package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Set;

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
 * A lock ID's index is kept for ever only while it lists a live lock without expiry (issue 19, the model test's
 * finding): beside members with a lease, a refused attempt without expiry, the release of the last member without
 * expiry, a renewal to a lease and a handle's extend each leave every ID key with a TTL, and the members with a lease
 * stay reachable by the ID.
 */
class RedisLockIdIndexLifetimeTest {

	private static final OwnerDetails OWNER = new OwnerDetails("index-life", "test-host");

	private static final String NS = "idlife";

	private static final Duration LONG = Duration.ofMinutes(10);

	@RegisterExtension
	static final RedisServerExtension server = new RedisServerExtension();

	private RedisLockProvider provider;

	@BeforeEach
	void open() {
		provider = new RedisLockProvider(server.factory(), new RedisLockSettings(NS, true, Duration.ofSeconds(1)));
	}

	@AfterEach
	void close() {
		provider.close();
		Set<String> keys = server.redis().keys(NS + ":*");
		if (!keys.isEmpty()) {
			server.redis().delete(keys);
		}
	}

	@Test
	void aRefusedAttemptWithoutExpiryLeavesNoIdKeyWithoutTtl() {
		provider.tryAcquire(request("leased", "t-leased", "job", false)).orElseThrow();
		provider.tryAcquire(request("taken", "t-other", null, false)).orElseThrow();

		assertThat(provider.tryAcquire(request("taken", "t-forever", "job", true))).isEmpty();
		assertThat(provider.tryAcquire(new LockRequest("taken", "t-forever-s", LONG, LockMode.SHARED, 2, OWNER, "job",
				true))).isEmpty();

		assertThat(idKeysWithoutTtl()).isEmpty();
		assertThat(provider.unlock("job")).extracting(LockInfo::key).containsExactly("leased");
	}

	@Test
	void releasingTheLastMemberWithoutExpiryLeavesNoIdKeyWithoutTtl() {
		provider.tryAcquire(request("leased", "t-leased", "job", false)).orElseThrow();
		Lease forever = provider.tryAcquire(request("forever", "t-forever", "job", true)).orElseThrow();
		Lease shared = provider.tryAcquire(new LockRequest("shared", "t-shared", LONG, LockMode.SHARED, 2, OWNER,
				"job", true)).orElseThrow();
		assertThat(idKeysWithoutTtl()).containsExactly(NS + ":id:{job}:forever");

		assertThat(forever.release()).isTrue();
		assertThat(idKeysWithoutTtl()).containsExactly(NS + ":id:{job}:forever");
		assertThat(shared.release()).isTrue();

		assertThat(idKeysWithoutTtl()).isEmpty();
		assertThat(provider.unlock("job")).extracting(LockInfo::key).containsExactly("leased");
	}

	@Test
	void aRenewalToALeaseLeavesNoIdKeyWithoutTtlAndTheIndexOutlivesTheNewLease() {
		provider.tryAcquire(request("leased", "t-leased", "job", false)).orElseThrow();
		provider.tryAcquire(request("forever", "t-forever", "job", true)).orElseThrow();

		assertThat(provider.renew("job", Duration.ofHours(2)).renewed()).hasSize(2);

		assertThat(idKeysWithoutTtl()).isEmpty();
		assertThat(server.redis().getExpire(NS + ":id:{job}")).isGreaterThan(Duration.ofHours(2).toSeconds() - 60);
		assertThat(provider.unlock("job")).extracting(LockInfo::key).containsExactlyInAnyOrder("leased", "forever");
		assertThat(server.redis().keys(NS + ":id:*")).isEmpty();
	}

	@Test
	void aHandleExtendOfALockWithoutExpiryLeavesNoIdKeyWithoutTtl() {
		Lease forever = provider.tryAcquire(request("forever", "t-forever", "job", true)).orElseThrow();

		assertThat(forever.extend(LONG)).isTrue();

		assertThat(idKeysWithoutTtl()).isEmpty();
		assertThat(provider.unlock("job")).extracting(LockInfo::key).containsExactly("forever");
	}

	private List<String> idKeysWithoutTtl() {
		return server.redis().keys(NS + ":id:*").stream().filter(key -> server.redis().getExpire(key) == -1).sorted()
			.toList();
	}

	private static LockRequest request(String key, String token, @Nullable String lockId, boolean noExpiry) {
		return new LockRequest(key, token, LONG, LockMode.EXCLUSIVE, 1, OWNER, lockId, noExpiry);
	}

}
