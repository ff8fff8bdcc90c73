package dev.distlock.test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.distlock.core.LockExtendException;
import dev.distlock.core.LockGroup;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockOperations;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockReleaseException;
import dev.distlock.core.LockTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestLockProviderTest {

	private static final LockOptions TEN_SECONDS = LockOptions.builder().timeout(Duration.ofSeconds(10)).build();

	private final TestLockProvider locks = new TestLockProvider();

	private final List<String> lost = new CopyOnWriteArrayList<>();

	/** The application under test: its lost-lock listener records each loss. */
	private final LockTemplate holder = LockTemplate.builder(locks)
		.listener(locks)
		.listener(LockListener.onLost(handle -> lost.add(handle.key())))
		.build();

	/** Another instance of the application on the same store. */
	private final LockTemplate other = locks.newTemplate();

	@AfterEach
	void close() {
		holder.close();
		other.close();
	}

	@Test
	void anotherCallerAcquiresAfterExpireAndTheHolderFindsItsLockGoneAtRelease() {
		LockHandle first = holder.acquire("expire:k", TEN_SECONDS);
		AtomicInteger onLost = new AtomicInteger();
		first.onLost(onLost::incrementAndGet);
		assertThat(other.tryAcquire("expire:k", TEN_SECONDS)).isEmpty();

		assertThat(locks.expire("expire:k")).isTrue();

		Optional<LockHandle> second = other.tryAcquire("expire:k", TEN_SECONDS);
		assertThat(second).isPresent();
		assertThat(second.get().fencingToken()).isGreaterThan(first.fencingToken());
		assertThat(onLost).as("an expiry tells no one until the holder asks the store").hasValue(0);
		assertThatThrownBy(first::release).isInstanceOf(LockReleaseException.class)
			.hasMessageContaining("no longer held under this owner token");
		assertThat(onLost).hasValue(1);
		assertThat(lost).containsExactly("expire:k");
		assertThat(locks.isLocked("expire:k")).as("the new holder's lock is untouched").isTrue();
		second.get().release();
	}

	@Test
	void theStoresClockMovesWithAdvanceSoOncePerPeriodLocksCanBeTestedWithoutWaiting() {
		Instant before = locks.storeTime();
		locks.advance(Duration.ofHours(1));
		assertThat(Duration.between(before, locks.storeTime())).isGreaterThanOrEqualTo(Duration.ofHours(1))
			.isLessThan(Duration.ofHours(1).plusMinutes(5));
		assertThat(holder.storeTime()).hasValueSatisfying(time -> assertThat(time).isAfterOrEqualTo(before.plusSeconds(3600)));
	}

	@Test
	void loseLockFiresTheHoldersOnLostExactlyOnceBeforeItReturns() {
		LockHandle handle = holder.acquire("lose:k", TEN_SECONDS);
		AtomicInteger onLost = new AtomicInteger();
		handle.onLost(onLost::incrementAndGet);

		assertThat(locks.loseLock("lose:k")).isTrue();

		assertThat(onLost).hasValue(1);
		assertThat(lost).containsExactly("lose:k");
		assertThat(handle.isHeld()).isFalse();
		assertThatThrownBy(handle::assertHeld).hasMessageContaining("lost");
		assertThat(other.tryAcquire("lose:k", TEN_SECONDS)).as("others can take the key at once").isPresent();
		assertThatThrownBy(handle::close).isInstanceOf(LockReleaseException.class);
		assertThat(onLost).as("no second signal at close").hasValue(1);
		assertThat(lost).hasSize(1);
		assertThat(new LockOperations(holder).heldLocks()).isEmpty();
	}

	@Test
	void loseLockReachesALockWithoutExpiryTakenInAGroup() {
		LockGroup group = holder.group("job-1");
		LockHandle handle = group.lock("lose:forever", LockOptions.noExpiry());
		AtomicInteger onLost = new AtomicInteger();
		handle.onLost(onLost::incrementAndGet);

		assertThat(locks.loseLock("lose:forever")).isTrue();

		assertThat(onLost).hasValue(1);
		assertThat(lost).containsExactly("lose:forever");
		assertThat(handle.isHeld()).isFalse();
		assertThat(locks.isLocked("lose:forever")).isFalse();
	}

	@Test
	void loseLockTellsOnlyTheHoldersOfThatKey() {
		LockHandle kept = holder.acquire("lose:kept", TEN_SECONDS);
		LockHandle taken = holder.acquire("lose:taken", TEN_SECONDS);

		assertThat(locks.loseLock("lose:taken")).isTrue();

		assertThat(lost).containsExactly("lose:taken");
		assertThat(taken.isHeld()).isFalse();
		assertThat(kept.isHeld()).isTrue();
		assertThat(locks.isLocked("lose:kept")).isTrue();
		kept.release();
	}

	@Test
	void loseLockOfAKeyNobodyHoldsChangesNothing() {
		assertThat(locks.loseLock("lose:nobody")).isFalse();
		assertThat(locks.expire("lose:nobody")).isFalse();
		assertThat(lost).isEmpty();
	}

	@Test
	void advancingTheClockPastTheLeaseLetsAnotherCallerInAndTheHolderFindsItLostAtItsNextExtend() {
		LockHandle first = holder.acquire("clock:k", TEN_SECONDS);

		locks.advance(Duration.ofSeconds(9));
		assertThat(other.tryAcquire("clock:k", TEN_SECONDS)).as("9 s into a 10 s lease").isEmpty();
		locks.advance(Duration.ofSeconds(2));

		Optional<LockHandle> second = other.tryAcquire("clock:k", TEN_SECONDS);
		assertThat(second).as("11 s into a 10 s lease").isPresent();
		assertThatThrownBy(() -> first.extend(Duration.ofSeconds(10))).isInstanceOf(LockExtendException.class);
		assertThat(lost).containsExactly("clock:k");
		second.get().release();
	}

	@Test
	void theWatchdogOfAnAutoRenewedLockFindsItLostAfterTheClockJumpsPastItsLease() throws Exception {
		LockOptions renewing = LockOptions.builder().timeout(Duration.ofMillis(300)).autoRenew(true).build();
		LockHandle handle = holder.acquire("clock:renewed", renewing);
		CountDownLatch onLost = new CountDownLatch(1);
		handle.onLost(onLost::countDown);

		locks.advance(Duration.ofSeconds(1));

		assertThat(onLost.await(30, TimeUnit.SECONDS)).as("the next renewal, a third of the lease later").isTrue();
		assertThat(lost).containsExactly("clock:renewed");
		assertThat(handle.isHeld()).isFalse();
	}

	@Test
	void theClockDoesNotGoBack() {
		assertThatThrownBy(() -> locks.advance(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("does not go back");
	}

	@Test
	void acquiredKeysListsEveryGrantInOrderTheWaitingOnesIncluded() throws Exception {
		LockHandle first = holder.acquire("seen:a", TEN_SECONDS);
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			Future<Long> waiter = executor.submit(() -> {
				try (LockHandle handle = other.acquire("seen:a", TEN_SECONDS.toBuilder()
					.waitUpTo(Duration.ofSeconds(30))
					.build())) {
					return handle.fencingToken();
				}
			});
			Thread.sleep(100); // most likely waiting by now; granted either way once released
			first.release();
			assertThat(waiter.get(30, TimeUnit.SECONDS)).isGreaterThan(first.fencingToken());
		}
		finally {
			executor.shutdownNow();
		}
		holder.execute("seen:b", TEN_SECONDS, handle -> null);

		assertThat(locks.acquiredKeys()).containsExactly("seen:a", "seen:a", "seen:b");
		assertThat(locks.lockedKeys()).isEmpty();
	}

	@Test
	void resetDropsEveryLockAndTheRecordOfGrants() {
		holder.acquire("reset:a", TEN_SECONDS);
		holder.acquire("reset:b", LockOptions.shared(2));
		assertThat(locks.lockedKeys()).containsExactly("reset:a", "reset:b");

		locks.reset();

		assertThat(locks.lockedKeys()).isEmpty();
		assertThat(locks.acquiredKeys()).isEmpty();
		assertThat(other.tryAcquire("reset:a", TEN_SECONDS)).isPresent();
	}

}
