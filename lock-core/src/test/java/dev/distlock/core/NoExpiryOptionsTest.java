package dev.distlock.core;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.distlock.core.memory.InMemoryLockProvider;
import dev.distlock.core.spi.LockInfo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NoExpiryOptionsTest {

	private final InMemoryLockProvider provider = new InMemoryLockProvider();

	private final LockTemplate template = new LockTemplate(provider);

	@AfterEach
	void close() {
		template.close();
	}

	@Test
	void settingATimeoutOnOptionsWithoutExpiryMakesThemExpiring() {
		LockOptions options = LockOptions.noExpiry().toBuilder().timeout(Duration.ofSeconds(1)).build();

		assertThat(options.expires()).isTrue();
		assertThat(options.timeout()).isEqualTo(Duration.ofSeconds(1));
		try (LockHandle handle = template.acquire("k", options)) {
			assertThat(handle.remaining()).isNotEqualTo(LockInfo.NO_EXPIRY).isLessThanOrEqualTo(Duration.ofSeconds(1));
		}
		assertThat(LockOptions.builder().timeout(Duration.ofSeconds(1)).noExpiry().build().expires()).isFalse();
	}

	@Test
	void templateDefaultsWithoutExpiryAreRefusedNamingDefaultsAndNoExpiry() {
		assertThatThrownBy(() -> LockTemplate.builder(provider).defaults(LockOptions.noExpiry()))
			.isInstanceOfSatisfying(InvalidLockOptionException.class, error -> {
				assertThat(error.option()).isEqualTo("defaults");
				assertThat(error.getMessage()).contains("noExpiry");
			});
	}

	@Test
	void extendingAHandleWithoutExpiryIsRefusedAndTheLockKeepsNoExpiry() {
		try (LockHandle handle = template.acquire("k", LockOptions.noExpiry())) {
			assertThatThrownBy(() -> handle.extend(Duration.ofMillis(500))).isInstanceOf(LockExtendException.class)
				.hasMessageContaining("noExpiry")
				.hasMessageContaining("renew");
			assertThat(handle.isHeld()).isTrue();
			assertThat(handle.remaining()).isEqualTo(LockInfo.NO_EXPIRY);
			assertThat(new LockOperations(template).status(dev.distlock.core.spi.StatusQuery.held()))
				.singleElement()
				.satisfies(info -> assertThat(info.remaining()).isEqualTo(LockInfo.NO_EXPIRY));
		}
		assertThat(template.isLocked("k")).isFalse();
	}

	@Test
	void aLockWithoutExpiryGivenALeaseByItsIdCanThenBeExtended() {
		try (LockGroup group = template.group("job-1")) {
			LockHandle handle = group.lock("k", LockOptions.noExpiry());
			template.renew("job-1", Duration.ofSeconds(5));
			handle.extend(Duration.ofSeconds(10));
			assertThat(handle.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(10)).isGreaterThan(Duration.ofSeconds(5));
		}
	}

	@Test
	void theDefaultBackoffIsCappedBelowTheTimeAStoreKeepsAWaitersPlace() {
		LockOptions grown = LockOptions.builder().backoffMultiplier(10).build();
		assertThat(grown.maxDelay()).isNull();
		assertThat(grown.effectiveMaxDelay()).isEqualTo(LockOptions.DEFAULT_MAX_DELAY).isLessThan(Duration.ofSeconds(2));
		var execution = grown.backOff().start();
		long last = 0;
		for (int i = 0; i < 10; i++) {
			last = execution.nextBackOff();
		}
		assertThat(last).isEqualTo(LockOptions.DEFAULT_MAX_DELAY.toMillis());
		// a fixed delay longer than the cap is kept, not refused
		LockOptions slow = LockOptions.builder().delay(Duration.ofSeconds(3)).build();
		assertThat(slow.effectiveMaxDelay()).isEqualTo(Duration.ofSeconds(3));
		assertThat(slow.backOff().start().nextBackOff()).isEqualTo(3_000);
	}

}
