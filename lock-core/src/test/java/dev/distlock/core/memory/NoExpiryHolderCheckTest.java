package dev.distlock.core.memory;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockLostException;
import dev.distlock.core.LockOperations;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.LockInfo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 19, case 7: a handle without expiry whose lock another process released by ID (and then took) turns lost,
 * instead of saying "held" until its own release.
 */
class NoExpiryHolderCheckTest {

	private final InMemoryLockProvider provider = new InMemoryLockProvider();

	private final LockTemplate a = LockTemplate.builder(provider).holderCheckInterval(Duration.ofMillis(50)).build();

	private final LockTemplate b = new LockTemplate(provider);

	@AfterEach
	void close() {
		a.close();
		b.close();
	}

	@Test
	void aHandleWithoutExpiryTurnsLostOnceAnotherProcessUnlocksItsIdAndTakesTheKey() throws Exception {
		LockHandle mine = a.group("job-7").lock("k", LockOptions.noExpiry());
		CountDownLatch lost = new CountDownLatch(1);
		mine.onLost(lost::countDown);

		assertThat(b.unlock("job-7")).extracting(LockInfo::key).containsExactly("k");
		try (LockHandle theirs = b.acquire("k")) {
			assertThat(theirs.fencingToken()).isGreaterThan(mine.fencingToken());
			assertThat(lost.await(30, TimeUnit.SECONDS)).isTrue();
			assertThat(mine.isHeld()).isFalse();
			assertThatThrownBy(mine::assertHeld).isInstanceOf(LockLostException.class);
			assertThat(new LockOperations(a).heldLocks()).isEmpty();
			assertThat(theirs.isHeld()).isTrue();
		}
	}

	@Test
	void aHandleWithoutExpiryStillHeldStaysHeldAndWithoutExpiryAcrossChecks() throws Exception {
		try (LockHandle mine = a.acquire("k", LockOptions.noExpiry())) {
			Thread.sleep(300); // several checks
			assertThat(mine.isHeld()).isTrue();
			assertThat(mine.remaining()).isEqualTo(LockInfo.NO_EXPIRY);
			assertThat(new LockOperations(a).status(dev.distlock.core.spi.StatusQuery.held())).singleElement()
				.satisfies(info -> assertThat(info.remaining()).isEqualTo(LockInfo.NO_EXPIRY));
		}
		assertThat(provider.isLocked("k")).isFalse();
	}

	@Test
	void aHandleWithoutExpiryTurnsLostAfterAForcedRelease() throws Exception {
		LockHandle mine = a.acquire("k", LockOptions.noExpiry());
		CountDownLatch lost = new CountDownLatch(1);
		mine.onLost(lost::countDown);

		assertThat(new LockOperations(b).forceRelease("k")).isTrue();

		assertThat(lost.await(30, TimeUnit.SECONDS)).isTrue();
		assertThat(mine.isHeld()).isFalse();
	}

}
