package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.distlock.core.LockMode;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.redis.testsupport.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Unlock and renew by lock ID racing the adds under the same ID (issue 19, case 1): no lock may become unreachable by
 * its ID, and no ID key may stay without a TTL once no live lock without expiry explains it (case 3).
 */
class RedisLockIdRacesTest {

	private static final OwnerDetails OWNER = new OwnerDetails("races", "test-host");

	private static final String NS = "races";

	@RegisterExtension
	static final RedisServerExtension server = new RedisServerExtension(Duration.ofSeconds(10));

	private final List<RedisLockProvider> providers = new ArrayList<>();

	@BeforeEach
	void open() {
		for (int i = 0; i < 3; i++) {
			providers.add(new RedisLockProvider(server.factory(), new RedisLockSettings(NS, true)));
		}
	}

	@AfterEach
	void close() {
		providers.forEach(RedisLockProvider::close);
		Set<String> keys = server.redis().keys(NS + ":*");
		if (!keys.isEmpty()) {
			server.redis().delete(keys);
		}
	}

	@Test
	void unlockByIdRacingAddsUnderTheSameIdLeavesNothingHeldAfterOneMoreUnlock() throws Exception {
		AtomicInteger added = new AtomicInteger();
		race(a -> {
			long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2500);
			for (int i = 0; System.nanoTime() < until; i++) {
				if (a.tryAcquire(request("u-" + i, "job", false)).isPresent()) {
					added.incrementAndGet();
				}
			}
		}, b -> b.unlock("job"));
		providers.get(1).unlock("job");

		assertThat(added.get()).isPositive();
		assertThat(heldLocks()).as("locks left held under the unlocked ID").isEmpty();
		assertThat(server.redis().keys(NS + ":id:*")).isEmpty();
		assertThat(server.redis().keys(NS + ":*:ids")).isEmpty();
	}

	@Test
	void renewByIdRacingAddsWithoutExpiryLeavesEveryLockReachableByItsId() throws Exception {
		race(a -> {
			for (int i = 0; i < 400; i++) {
				a.tryAcquire(request("r-" + i, "job", true)).orElseThrow();
			}
		}, b -> b.renew("job", Duration.ofSeconds(30)));
		providers.get(1).unlock("job");
		providers.get(2).unlock("job");

		assertThat(heldLocks()).as("locks left held under the unlocked ID").isEmpty();
		assertThat(server.redis().keys(NS + ":id:*")).isEmpty();
		assertThat(server.redis().keys(NS + ":*:ids")).isEmpty();
	}

	/**
	 * Runs the adder on the first provider while the two others loop the by-ID call, until the adder is done.
	 */
	private void race(Consumer<RedisLockProvider> adder, Consumer<RedisLockProvider> byId) throws Exception {
		AtomicBoolean adding = new AtomicBoolean(true);
		ExecutorService executor = Executors.newFixedThreadPool(3);
		try {
			List<Future<?>> loops = new ArrayList<>();
			for (int i = 1; i <= 2; i++) {
				RedisLockProvider provider = providers.get(i);
				loops.add(executor.submit(() -> {
					while (adding.get()) {
						byId.accept(provider);
					}
					return null;
				}));
			}
			try {
				executor.submit(() -> adder.accept(providers.get(0))).get(2, TimeUnit.MINUTES);
			}
			finally {
				adding.set(false);
			}
			for (Future<?> loop : loops) {
				loop.get(2, TimeUnit.MINUTES);
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	/** The lock keys (not fence, ids or queue keys) still in the namespace. */
	private List<String> heldLocks() {
		return server.redis().keys(NS + ":{*").stream().filter(key -> key.endsWith("}")).sorted().toList();
	}

	private static LockRequest request(String key, String lockId, boolean noExpiry) {
		return new LockRequest(key, "t-" + key, Duration.ofSeconds(30), LockMode.EXCLUSIVE, 1, OWNER, lockId,
				noExpiry);
	}

}
