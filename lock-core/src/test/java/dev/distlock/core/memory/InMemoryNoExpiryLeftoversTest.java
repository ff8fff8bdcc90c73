package dev.distlock.core.memory;

import java.time.Duration;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.distlock.core.LockGroup;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockMode;
import dev.distlock.core.LockOperations;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.StatusQuery;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 19's classes of bug, checked on the in-memory provider too (the seams kit runs every kind on it): locks
 * without expiry and their lock-ID records that never go, and replayed calls that answer differently.
 */
class InMemoryNoExpiryLeftoversTest {

	private final InMemoryLockProvider provider = new InMemoryLockProvider();

	private final LockTemplate template = LockTemplate.builder(provider).holderCheckInterval(Duration.ofMillis(50))
		.build();

	@AfterEach
	void close() {
		template.close();
	}

	@Test
	void aLockWithoutExpiryRenewedByItsIdToALeaseEndsWithItAndLeavesNothingHeldUnderTheId() throws Exception {
		LockGroup group = template.group("job-3");
		group.lock("k", LockOptions.noExpiry());
		group.lockShared("s", 2, LockOptions.noExpiry());

		assertThat(template.renew("job-3", Duration.ofMillis(100)).renewed()).hasSize(2);
		awaitFree("k");
		awaitFree("s");

		assertThat(template.unlock("job-3")).isEmpty();
		assertThat(new LockOperations(template).status(StatusQuery.held())).isEmpty();
		assertThat(new LockOperations(template).status(StatusQuery.held().withLockId("job-3"))).isEmpty();
	}

	@Test
	void aForcedReleaseOfALockWithoutExpiryLeavesNothingUnderItsIdAndItsHandleLost() throws Exception {
		LockHandle handle = template.group("job-f").lock("k", LockOptions.noExpiry());

		assertThat(new LockOperations(template).forceRelease("k")).isTrue();

		assertThat(template.unlock("job-f")).isEmpty();
		assertThat(new LockOperations(template).status(StatusQuery.held())).isEmpty();
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (handle.isHeld()) {
			assertThat(System.nanoTime()).as("the handle learned of the loss").isLessThan(deadline);
			Thread.sleep(20);
		}
	}

	@Test
	void releasesReplayedAnswerAsTheFirstDidForExclusiveAndSharedLocks() {
		OwnerDetails owner = OwnerDetails.of("replay");
		Lease exclusive = provider.tryAcquire(new LockRequest("x", "t1", Duration.ofSeconds(30), LockMode.EXCLUSIVE, 1,
				owner, "job-r", true)).orElseThrow();
		Lease first = provider.tryAcquire(new LockRequest("s", "t2", Duration.ofSeconds(30), LockMode.SHARED, 2,
				owner)).orElseThrow();
		Lease second = provider.tryAcquire(new LockRequest("s", "t3", Duration.ofSeconds(30), LockMode.SHARED, 2,
				owner)).orElseThrow();

		assertThat(exclusive.release()).isTrue();
		assertThat(exclusive.release()).isTrue();
		assertThat(first.release()).isTrue();
		assertThat(second.release()).isTrue();
		assertThat(first.release()).as("a replay after the other reader released").isTrue();
		assertThat(provider.unlock("job-r")).isEmpty();
		assertThat(provider.isLocked("x")).isFalse();
		assertThat(provider.isLocked("s")).isFalse();
		Optional<Lease> again = provider.tryAcquire(new LockRequest("x", "t4", Duration.ofSeconds(30),
				LockMode.EXCLUSIVE, 1, owner));
		assertThat(again).isPresent();
		assertThat(again.get().fencingToken()).isGreaterThan(exclusive.fencingToken());
	}

	private void awaitFree(String key) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (provider.isLocked(key)) {
			assertThat(System.nanoTime()).as("%s ended with its lease", key).isLessThan(deadline);
			Thread.sleep(20);
		}
	}

}
