package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.distlock.core.LockMode;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.redis.testsupport.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * No Redis key without a TTL unless a live lock without expiry explains it (issue 19, cases 2, 3 and 4): not after an
 * acquire of a lock without expiry that failed on the client but ran on the server, not after a lock without expiry
 * under a lock ID is renewed to a lease or released by force, and not when a fence hash would expire while its lock
 * is still held.
 */
class RedisImmortalKeysTest {

	private static final OwnerDetails OWNER = new OwnerDetails("immortal", "test-host");

	private static final String NS = "immortal";

	/** Generous: only a broken protocol leaves a key past it, not a slow machine. */
	private static final Duration SETTLE = Duration.ofSeconds(60);

	@RegisterExtension
	static final RedisServerExtension server = new RedisServerExtension(Duration.ofSeconds(10));

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
	void aLockWithoutExpiryGrantedByAnAcquireThatTimedOutOnTheClientIsReleasedOnceTheServerAnswers() throws Exception {
		LettuceConnectionFactory impatient = server.process().connectionFactory(Duration.ofMillis(500));
		RedisLockProvider paused = new RedisLockProvider(impatient, new RedisLockSettings(NS, true));
		try {
			// The scripts are cached first, so the frozen server runs the acquire itself, not a NOSCRIPT error.
			assertThat(paused.tryAcquire(request("warm", "t-warm", null, true)).orElseThrow().release()).isTrue();
			server.process().freeze();
			try {
				// The acquire and the first cleanups time out on the client; the server runs them all once thawed.
				assertThatThrownBy(() -> paused.tryAcquire(new LockRequest("frozen", "t-frozen", Duration.ofMillis(300),
						LockMode.EXCLUSIVE, 1, OWNER, null, true))).isInstanceOf(LockStoreException.class);
				Thread.sleep(1500);
			}
			finally {
				server.process().thaw();
			}
			awaitGone(NS + ":{frozen}");
			assertThat(provider.tryAcquire(request("frozen", "t-next", null, false))).isPresent();
		}
		finally {
			paused.close();
			impatient.destroy();
		}
	}

	@Test
	void idKeysOfALockWithoutExpiryRenewedToALeaseExpireWithIt() throws Exception {
		provider.tryAcquire(request("renewed", "t-r", "job", true)).orElseThrow();
		assertThat(server.redis().getExpire(NS + ":id:{job}:forever")).isEqualTo(-1L);

		assertThat(provider.renew("job", Duration.ofMillis(500)).renewed()).hasSize(1);

		assertThat(keysWithoutTtl()).isEmpty();
		awaitNamespaceEmpty();
	}

	@Test
	void aForcedReleaseOfALockWithoutExpiryUnderAnIdLeavesNoIdKeysAndNoKeyWithoutTtl() {
		provider.tryAcquire(request("forced", "t-f", "job", true)).orElseThrow();

		assertThat(provider.forceRelease("forced")).isTrue();

		assertThat(server.redis().hasKey(NS + ":{forced}:ids")).isFalse();
		assertThat(server.redis().hasKey(NS + ":id:{job}")).isFalse();
		assertThat(keysWithoutTtl()).isEmpty();
		assertThat(provider.unlock("job")).isEmpty();
	}

	@Test
	void aFenceHashOutlivesItsExtendedLockSoAReplayedAcquireAnswersWithItsTokenAndTheReleaseLeavesNoImmortalKey()
			throws Exception {
		LockRequest request = request("extended", "t-e", null, false);
		Lease lease = provider.tryAcquire(request).orElseThrow();
		assertThat(lease.extend(Duration.ofSeconds(5))).isTrue();
		Thread.sleep(1500); // past the 1 s fence retention

		Optional<Lease> replayed = provider.tryAcquire(request);
		assertThat(replayed).isPresent();
		assertThat(replayed.get().fencingToken()).isEqualTo(lease.fencingToken());
		assertThat(lease.release()).isTrue();

		assertThat(keysWithoutTtl()).isEmpty();
		awaitGone(NS + ":{extended}:fence");
	}

	@Test
	void aLockWithoutExpiryKeepsItsFenceHashAndItsReleaseGivesEveryKeyATtl() throws Exception {
		LockRequest request = request("forever", "t-n", null, true);
		Lease lease = provider.tryAcquire(request).orElseThrow();
		Thread.sleep(1500); // past the 1 s fence retention

		assertThat(provider.tryAcquire(request).orElseThrow().fencingToken()).isEqualTo(lease.fencingToken());
		assertThat(lease.release()).isTrue();
		assertThat(lease.release()).as("replayed").isTrue();

		assertThat(keysWithoutTtl()).isEmpty();
		awaitGone(NS + ":{forever}:fence");
	}

	private void awaitNamespaceEmpty() throws InterruptedException {
		long deadline = System.nanoTime() + SETTLE.toNanos();
		while (!server.redis().keys(NS + ":*").isEmpty() && System.nanoTime() < deadline) {
			Thread.sleep(100);
		}
		assertThat(server.redis().keys(NS + ":*")).isEmpty();
	}

	private void awaitGone(String key) throws InterruptedException {
		long deadline = System.nanoTime() + SETTLE.toNanos();
		while (Boolean.TRUE.equals(server.redis().hasKey(key)) && System.nanoTime() < deadline) {
			Thread.sleep(100);
		}
		assertThat(server.redis().hasKey(key)).as(key + " left held, TTL " + server.redis().getExpire(key)).isFalse();
	}

	private List<String> keysWithoutTtl() {
		return server.redis().keys(NS + ":*").stream().filter(key -> server.redis().getExpire(key) == -1).sorted()
			.toList();
	}

	private static LockRequest request(String key, String token, @Nullable String lockId, boolean noExpiry) {
		return new LockRequest(key, token, Duration.ofMillis(500), LockMode.EXCLUSIVE, 1, OWNER, lockId, noExpiry);
	}

}
