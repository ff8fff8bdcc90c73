package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockExtendException;
import dev.distlock.core.LockOperations;
import dev.distlock.core.LockReleaseException;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.redis.testsupport.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Leases, minimum holds and extensions shorter than a round trip (issue 19, cases 5 and 6): a healthy Redis answers
 * them as any store does ("not acquired", "held", "lost"), never with a store error, whatever the machine's load.
 */
class RedisShortDurationsTest {

	private static final Duration ONE_MS = Duration.ofMillis(1);

	@RegisterExtension
	static final RedisServerExtension server = new RedisServerExtension(Duration.ofSeconds(10));

	private RedisLockProvider provider;

	private LockTemplate template;

	@BeforeEach
	void open() {
		provider = new RedisLockProvider(server.factory(), new RedisLockSettings("short", true));
		template = new LockTemplate(provider);
	}

	@AfterEach
	void close() {
		template.close();
		provider.close();
		server.redis().delete(server.redis().keys("short:*"));
	}

	@Test
	void aReleaseInsideTheMinimumHoldKeepsTheLockForTheRestOfTheHoldAndNeverFails() {
		LockOptions options = LockOptions.builder().timeout(Duration.ofSeconds(5)).holdAtLeast(Duration.ofMillis(5))
			.build();
		int released = 0;
		for (int i = 0; i < 200; i++) {
			LockHandle handle = template.acquire("hold-" + i, options);
			long until = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(4900);
			while (System.nanoTime() < until) {
				Thread.onSpinWait();
			}
			handle.release();
			released++;
		}
		assertThat(released).isEqualTo(200);
		assertThat(new LockOperations(template).heldLocks()).isEmpty();
	}

	@Test
	void aOneMillisecondLeaseIsAcquiredOrNotButNeverAStoreError() {
		LockOptions options = LockOptions.builder().timeout(ONE_MS).build();
		int answered = 0;
		for (int i = 0; i < 200; i++) {
			// A grant that arrives after its 1 ms lease is released and reported as not acquired.
			template.tryAcquire("lease-" + i, options).ifPresent(RedisShortDurationsTest::closeHeldOrLost);
			answered++;
		}
		assertThat(answered).isEqualTo(200);
		assertThat(new LockOperations(template).heldLocks()).isEmpty();
	}

	@Test
	void aOneMillisecondExtensionAndHoldAreHeldOrLostButNeverAStoreError() {
		LockOptions options = LockOptions.builder().timeout(Duration.ofSeconds(5)).holdAtLeast(ONE_MS).build();
		int answered = 0;
		for (int i = 0; i < 100; i++) {
			LockHandle handle = template.acquire("extend-" + i, options);
			try {
				handle.extend(ONE_MS);
			}
			catch (LockExtendException ex) {
				assertThat(ex).hasNoCause(); // lost or ran out, typed: not a store error
			}
			closeHeldOrLost(handle);
			answered++;
		}
		assertThat(answered).isEqualTo(100);
	}

	@Test
	void twoThreadsWithShortMinimumHoldsKeepAnUnguardedCounterExact() throws Exception {
		LockOptions options = LockOptions.builder()
			.timeout(Duration.ofSeconds(30))
			.holdAtLeast(Duration.ofMillis(2))
			.delay(Duration.ofMillis(1))
			.backoffMultiplier(1.5)
			.maxDelay(Duration.ofMillis(10))
			.waitUpTo(Duration.ofSeconds(60))
			.build();
		int[] counter = { 0 };
		AtomicInteger sections = new AtomicInteger();
		ExecutorService executor = Executors.newFixedThreadPool(2);
		try {
			List<Future<?>> futures = new ArrayList<>();
			for (int t = 0; t < 2; t++) {
				futures.add(executor.submit(() -> {
					for (int i = 0; i < 150; i++) {
						template.execute("fuzz", options, handle -> {
							int read = counter[0];
							Thread.onSpinWait();
							counter[0] = read + 1;
							sections.incrementAndGet();
							return null;
						});
					}
					return null;
				}));
			}
			for (Future<?> future : futures) {
				future.get(5, TimeUnit.MINUTES);
			}
		}
		finally {
			executor.shutdownNow();
		}
		assertThat(sections.get()).isEqualTo(300);
		assertThat(counter[0]).isEqualTo(300);
	}

	/**
	 * Closes a handle whose short lease may have ended: a release reports held or lost, never a store error.
	 */
	private static void closeHeldOrLost(LockHandle handle) {
		try {
			handle.close();
		}
		catch (LockReleaseException ex) {
			assertThat(ex).hasNoCause(); // lost, typed: not a store error
		}
	}

}
