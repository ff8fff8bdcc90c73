package dev.distlock.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.distlock.core.LockAttempt;
import dev.distlock.core.memory.InMemoryLockProvider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LockTemplateTest {

	private final ScriptedProvider provider = new ScriptedProvider();

	private final List<String> events = new CopyOnWriteArrayList<>();

	private final LockTemplate template = LockTemplate.builder(provider).listener(new RecordingListener()).build();

	@AfterEach
	void close() {
		template.close();
	}

	@Test
	void failedRenewalMarksTheHandleLostAndFiresTheListenerOnce() throws Exception {
		CountDownLatch lost = new CountDownLatch(1);
		LockHandle handle = template.acquire("k", renewing(Duration.ofMillis(150)));
		handle.onLost(lost::countDown);
		provider.extendSucceeds.set(false);

		assertThat(lost.await(5, TimeUnit.SECONDS)).isTrue();
		assertThat(handle.isHeld()).isFalse();
		assertThat(handle.remaining()).isZero();
		assertThat(events).containsExactly("acquired k", "lost k");
		assertThat(new LockOperations(template).heldLocks()).isEmpty();
		assertThatThrownBy(handle::release).isInstanceOf(LockReleaseException.class).hasMessageContaining("lost");
		assertThatThrownBy(handle::assertHeld).isInstanceOf(LockLostException.class);
	}

	@Test
	void renewalExtendsTheLeaseOnSchedule() throws Exception {
		LockHandle handle = template.acquire("k", renewing(Duration.ofMillis(150)));
		Thread.sleep(400);
		assertThat(provider.extends_.get()).isGreaterThanOrEqualTo(2);
		assertThat(handle.isHeld()).isTrue();
		handle.release();
	}

	@Test
	void releaseCancelsRenewalEvenWhenTheReleaseCallFails() throws Exception {
		LockHandle handle = template.acquire("k", renewing(Duration.ofMillis(90)));
		provider.releaseThrows.set(true);
		assertThatThrownBy(handle::release).isInstanceOf(LockReleaseException.class)
			.hasCauseInstanceOf(LockStoreException.class);
		int extendsAtRelease = provider.extends_.get();
		Thread.sleep(300);
		assertThat(provider.extends_.get()).isEqualTo(extendsAtRelease);
		assertThat(new LockOperations(template).heldLocks()).isEmpty();
		assertThat(events).containsExactly("acquired k", "releaseFailed k");
	}

	@Test
	void oneWatchdogThreadRenewsEveryLock() {
		for (int i = 0; i < 50; i++) {
			template.acquire("k" + i, renewing(Duration.ofSeconds(3)));
		}
		long watchdogs = Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter(thread -> thread.getName().equals("distlock-watchdog"))
			.count();
		assertThat(watchdogs).isEqualTo(1);
		assertThat(new LockOperations(template).releaseAll()).isEqualTo(50);
		assertThat(new LockOperations(template).heldLocks()).isEmpty();
	}

	@Test
	void storeFailureIsATypedErrorNamingTheKey() {
		provider.down.set(true);
		assertThatThrownBy(() -> template.acquire("k")).isInstanceOf(LockStoreException.class)
			.hasMessageContaining("'k'")
			.hasMessageContaining("connection refused");
		assertThat(provider.attempts.get()).isEqualTo(1);
		assertThat(events).containsExactly("error k");
	}

	@Test
	void skipVariantReturnsEmptyAfterEveryRetry() {
		provider.refused.add("k");
		LockOptions options = LockOptions.builder().retries(3).delay(Duration.ofMillis(1)).build();
		boolean[] ran = { false };
		assertThat(template.tryExecute("k", options, handle -> ran[0] = true)).isEmpty();
		assertThat(ran[0]).isFalse();
		assertThat(provider.attempts.get()).isEqualTo(4);
		assertThat(events).containsExactly("failed k attempts=4 skipped=true");
	}

	@Test
	void throwingVariantCarriesAttemptsAndWait() {
		provider.refused.add("k");
		LockOptions options = LockOptions.builder().retries(2).delay(Duration.ofMillis(20)).build();
		assertThatThrownBy(() -> template.execute("k", options, handle -> "never"))
			.isInstanceOfSatisfying(LockAcquisitionException.class, error -> {
				assertThat(error.key()).isEqualTo("k");
				assertThat(error.attempts()).isEqualTo(3);
				assertThat(error.waited()).isGreaterThanOrEqualTo(Duration.ofMillis(40));
			});
	}

	@Test
	void executeWithSkipInTheOptionsReturnsNullWithoutRunningTheCallback() {
		provider.refused.add("k");
		boolean[] ran = { false };
		LockOptions options = LockOptions.builder().retries(1).delay(Duration.ofMillis(1))
			.onFailure(FailureMode.SKIP).build();
		String result = template.execute("k", options, handle -> {
			ran[0] = true;
			return "ran";
		});
		assertThat(result).isNull();
		assertThat(ran[0]).isFalse();
		assertThat(provider.attempts.get()).isEqualTo(2);
		assertThat(events).containsExactly("failed k attempts=2 skipped=true");
	}

	@Test
	void acquireThrowsEvenWithSkipInTheOptions() {
		provider.refused.add("k");
		LockOptions options = LockOptions.builder().onFailure(FailureMode.SKIP).build();
		assertThatThrownBy(() -> template.acquire("k", options)).isInstanceOf(LockAcquisitionException.class);
	}

	@Test
	void maxWaitEndsWaitingWhateverRetriesRemain() {
		provider.refused.add("k");
		LockOptions options = LockOptions.builder().delay(Duration.ofMillis(10)).waitUpTo(Duration.ofMillis(100)).build();
		assertThatThrownBy(() -> template.acquire("k", options))
			.isInstanceOfSatisfying(LockAcquisitionException.class, error -> {
				assertThat(error.waited()).isGreaterThanOrEqualTo(Duration.ofMillis(100));
				assertThat(error.attempts()).isBetween(2, 12);
			});
	}

	@Test
	void groupRollsBackTheKeysItTookWhenALaterKeyIsHeld() {
		provider.refused.add("c");
		assertThat(template.tryAcquireAll(List.of("c", "a", "b"), LockOptions.defaults())).isEmpty();
		assertThat(provider.attempts.get()).isEqualTo(3);
		assertThat(provider.releases.get()).isEqualTo(2);
		assertThat(new LockOperations(template).heldLocks()).isEmpty();
	}

	@Test
	void executeReleasesAfterTheCallbackAndReturnsItsResult() {
		String result = template.execute("k", handle -> "fenced:" + handle.fencingToken());
		assertThat(result).isEqualTo("fenced:1");
		assertThat(provider.releases.get()).isEqualTo(1);
		assertThat(events).containsExactly("acquired k", "released k");
	}

	@Test
	void executeReleasesWhenTheCallbackThrows() {
		assertThatThrownBy(() -> template.execute("k", handle -> {
			throw new IllegalStateException("boom");
		})).isInstanceOf(IllegalStateException.class);
		assertThat(provider.releases.get()).isEqualTo(1);
		assertThat(new LockOperations(template).heldLocks()).isEmpty();
	}

	@Test
	void closeIsIdempotentAfterRelease() {
		LockHandle handle = template.acquire("k");
		handle.release();
		handle.close();
		assertThat(provider.releases.get()).isEqualTo(1);
	}

	@Test
	void aFailingListenerNeverReachesTheCaller() {
		LockTemplate noisy = LockTemplate.builder(provider).listener(new LockListener() {
			@Override
			public void onAcquired(LockHandle handle) {
				throw new IllegalStateException("listener bug");
			}
		}).build();
		Integer result = noisy.execute("k", handle -> 42);
		assertThat(result).isEqualTo(42);
	}

	@Test
	void cacheStampedeHelperComputesOnceUnderContention() throws Exception {
		LockTemplate local = new LockTemplate(new InMemoryLockProvider());
		AtomicReference<String> cache = new AtomicReference<>();
		AtomicInteger computations = new AtomicInteger();
		LockOptions wait = LockOptions.builder().delay(Duration.ofMillis(2)).waitUpTo(Duration.ofSeconds(10)).build();
		ExecutorService executor = Executors.newFixedThreadPool(8);
		try {
			List<Future<String>> results = new java.util.ArrayList<>();
			for (int i = 0; i < 8; i++) {
				results.add(executor.submit(() -> local.computeIfMissing("cache:k", cache::get, () -> {
					computations.incrementAndGet();
					sleep(50);
					return "value";
				}, cache::set, wait)));
			}
			for (Future<String> result : results) {
				assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("value");
			}
		}
		finally {
			executor.shutdownNow();
		}
		assertThat(computations.get()).isEqualTo(1);
		assertThat(new LockOperations(local).heldLocks()).isEmpty();
	}

	private static LockOptions renewing(Duration lease) {
		return LockOptions.builder().timeout(lease).autoRenew(true).build();
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private final class RecordingListener implements LockListener {

		@Override
		public void onAcquired(LockHandle handle) {
			events.add("acquired " + handle.key());
		}

		@Override
		public void onAcquireFailed(LockAttempt attempt, int attempts, Duration waited, boolean skipped) {
			events.add("failed " + String.join(",", attempt.keys()) + " attempts=" + attempts + " skipped=" + skipped);
		}

		@Override
		public void onAcquireError(LockAttempt attempt, LockStoreException error) {
			events.add("error " + String.join(",", attempt.keys()));
		}

		@Override
		public void onReleased(LockHandle handle, Duration heldFor) {
			events.add("released " + handle.key());
		}

		@Override
		public void onReleaseFailed(LockHandle handle, DistributedLockException error) {
			events.add("releaseFailed " + handle.key());
		}

		@Override
		public void onLost(LockHandle handle, LockLostException cause) {
			events.add("lost " + handle.key());
		}

	}

	@Test
	void lockIdsAndLocksWithoutExpiryNeedAProviderWithLockIdsAndSaySo() {
		LockTemplate plain = new LockTemplate(new ScriptedProvider());
		assertThatThrownBy(() -> plain.group("job-1")).isInstanceOf(UnsupportedOperationException.class)
			.hasMessageContaining("LockIdSupport");
		assertThatThrownBy(() -> plain.unlock("job-1")).isInstanceOf(UnsupportedOperationException.class);
		assertThatThrownBy(() -> plain.renew("job-1", Duration.ofSeconds(1)))
			.isInstanceOf(UnsupportedOperationException.class);
		assertThatThrownBy(() -> plain.tryAcquire("k", LockOptions.noExpiry()))
			.isInstanceOf(UnsupportedOperationException.class)
			.hasMessageContaining("noExpiry");
	}

	@Test
	void aBlankOrControlCharacterLockIdIsRefusedNamingIt() {
		LockTemplate memory = new LockTemplate(new dev.distlock.core.memory.InMemoryLockProvider());
		for (String bad : new String[] { "", "  ", "a\nb", "x".repeat(201) }) {
			assertThatThrownBy(() -> memory.group(bad)).isInstanceOfSatisfying(InvalidLockOptionException.class,
					error -> assertThat(error.option()).isEqualTo("lockId"));
		}
		assertThat(LockTemplate.newLockId()).hasSize(22).isNotEqualTo(LockTemplate.newLockId());
	}

}
