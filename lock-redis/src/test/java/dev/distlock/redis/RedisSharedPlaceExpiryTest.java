package dev.distlock.redis;

import java.time.Duration;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.distlock.core.LockMode;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.redis.testsupport.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A shared place that has run out by the server's clock while its set still lives (the set expires at the end of
 * the millisecond its last place ends, a script sees the place gone within it): an extend or release that answers
 * "lost" for it also removes it, so the lock is free, as the answer says (found by the model test: isLocked true
 * with every holder gone).
 */
class RedisSharedPlaceExpiryTest {

	private static final OwnerDetails OWNER = new OwnerDetails("shared-expiry", "test-host");

	private static final String NS = "sharedexp";

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
	void anExtendThatFindsTheLastPlaceExpiredLeavesTheLockFree() {
		Lease lease = placeThatRanOut("extended", "t-e");

		assertThat(lease.extend(Duration.ofMinutes(1))).isFalse();

		assertThat(provider.isLocked("extended")).isFalse();
		assertThat(server.redis().hasKey(NS + ":{extended}:holders")).isFalse();
	}

	@Test
	void aReleaseThatFindsTheLastPlaceExpiredLeavesTheLockFree() {
		Lease lease = placeThatRanOut("released", "t-r");

		assertThat(lease.release()).isFalse();

		assertThat(provider.isLocked("released")).isFalse();
		assertThat(server.redis().hasKey(NS + ":{released}:holders")).isFalse();
	}

	/** A shared place whose score is in the past while its set still has a minute to live. */
	private Lease placeThatRanOut(String key, String token) {
		Lease lease = provider.tryAcquire(new LockRequest(key, token, Duration.ofMinutes(1), LockMode.SHARED, 2,
				OWNER)).orElseThrow();
		server.redis().opsForZSet().add(NS + ":{" + key + "}", token, System.currentTimeMillis() - 60_000);
		assertThat(server.redis().getExpire(NS + ":{" + key + "}")).isPositive();
		return lease;
	}

}
