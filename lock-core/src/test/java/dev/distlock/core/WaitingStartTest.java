package dev.distlock.core;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.distlock.core.memory.InMemoryLockProvider;
import dev.distlock.core.spi.Acquisition;
import dev.distlock.core.spi.FirstAttempt;
import dev.distlock.core.spi.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link dev.distlock.core.spi.WaitingLockProvider#start}, as its default does it on the in-memory provider: the first
 * attempt of a waiting acquisition hands back the lock when it wins, or the acquisition that goes on from it.
 */
class WaitingStartTest {

	private final InMemoryLockProvider provider = new InMemoryLockProvider();

	@Test
	void aFirstAttemptThatWinsIsTheGrantedLock() {
		FirstAttempt first = provider.start(request("k", "a"));

		assertThat(first).isInstanceOf(Acquisition.Granted.class);
		assertThat(provider.isLocked("k")).isTrue();
		assertThat(((Acquisition.Granted) first).lease().release()).isTrue();
		assertThat(provider.isLocked("k")).isFalse();
	}

	@Test
	void aRefusedFirstAttemptIsTheAcquisitionThatTakesTheLockOnceReleased() throws Exception {
		Acquisition.Granted holder = (Acquisition.Granted) provider.start(request("k", "a"));

		FirstAttempt first = provider.start(request("k", "b"));

		assertThat(first).isInstanceOf(Acquisition.class);
		try (Acquisition waiting = (Acquisition) first) {
			assertThat(waiting.tryOnce()).isEmpty();
			holder.lease().release();
			assertThat(waiting.tryOnce()).hasValueSatisfying(granted -> assertThat(granted.lease().release()).isTrue());
		}
		assertThat(provider.isLocked("k")).isFalse();
	}

	private static LockRequest request(String key, String token) {
		return new LockRequest(key, token, Duration.ofSeconds(30), LockMode.EXCLUSIVE, 1, OwnerDetails.local());
	}

}
