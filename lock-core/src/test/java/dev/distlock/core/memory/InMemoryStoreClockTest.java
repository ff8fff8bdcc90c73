package dev.distlock.core.memory;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.distlock.core.LockTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The in-memory store's clock: the JVM's, or, on a nanosecond clock of the caller's, that clock's time since the
 * provider was made, so a test that moves the clock moves the store time with the leases.
 */
class InMemoryStoreClockTest {

	@Test
	void theStoreTimeIsTheJvmsClock() {
		InMemoryLockProvider provider = new InMemoryLockProvider();
		Instant before = Instant.now();
		Instant storeTime = provider.storeTime();
		assertThat(storeTime).isBetween(before, Instant.now());
	}

	@Test
	void onItsOwnNanosecondClockTheStoreTimeMovesWithThatClock() {
		AtomicLong nanos = new AtomicLong(1_000);
		Instant before = Instant.now();
		InMemoryLockProvider provider = new InMemoryLockProvider(nanos::get);
		Instant start = provider.storeTime();
		assertThat(start).isBetween(before, Instant.now());
		nanos.addAndGet(Duration.ofHours(1).toNanos());
		assertThat(provider.storeTime()).isEqualTo(start.plus(Duration.ofHours(1)));
	}

	@Test
	void theTemplateReadsTheStoreTimeThroughTheProvider() {
		AtomicLong nanos = new AtomicLong();
		InMemoryLockProvider provider = new InMemoryLockProvider(nanos::get);
		Instant start = provider.storeTime();
		nanos.addAndGet(Duration.ofMinutes(3).toNanos());
		try (LockTemplate template = new LockTemplate(provider)) {
			assertThat(template.storeTime()).contains(start.plus(Duration.ofMinutes(3)));
		}
	}

}
